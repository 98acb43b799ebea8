"""External-call tests: fixtures come from tests/compiler/conftest.py; helpers in extern_testlib.py."""
