"""Fixtures of the ttl.math compile tests: those of tests/compiler/conftest.py apply here."""
