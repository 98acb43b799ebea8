"""`ttl run`'s start-up collector settings (ttl.host.startup): deferred full
collections until the program opens a device or calls an operation, then the
start-up objects frozen and the thresholds restored."""

from __future__ import annotations

import gc

import pytest

from ttl.host import startup


@pytest.fixture(autouse=True)
def _restore_collector():
    threshold = gc.get_threshold()
    yield
    startup.end(freeze=False)
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_begin_defers_full_collections_and_end_freezes_and_restores():
    before = gc.get_threshold()
    startup.begin()
    assert startup.in_startup()
    assert gc.get_threshold() == (*before[:2], startup.DEFERRED_FULL_COLLECTIONS)
    startup.end()
    assert not startup.in_startup()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() > 0


def test_end_happens_once():
    startup.begin()
    startup.end()
    frozen = gc.get_freeze_count()
    kept = [[] for _ in range(1000)]  # objects made after start-up stay collectable
    startup.end()
    assert gc.get_freeze_count() == frozen
    assert kept


def test_end_without_begin_leaves_the_collector_alone():
    before = gc.get_threshold()
    startup.end()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_program_that_ended_restores_without_freezing():
    before = gc.get_threshold()
    startup.begin()
    startup.end(freeze=False)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
