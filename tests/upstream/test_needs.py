"""app.upstream.needs: the names a fix declares, checked before install, and a failed install taken back."""

from __future__ import annotations

import sys
import types

from app.upstream import FIXES, Fix, install_one
from app.upstream.needs import Need, Snapshot, fingerprint, missing


class Library:
    """Stands for a library class a fix patches (a module-level class, so a Need can name it)."""

    def _hook(self) -> str:
        return "stock"


def test_a_declared_name_that_is_gone_or_whose_source_changed_is_said():
    here = __name__
    assert missing((Need(here, "Library._hook"),)) == ""
    assert missing((Need(here, "Library._gone"),)) == f"no {here}.Library._gone"
    assert missing((Need("no_such_library.module", "_x"),)) == "no no_such_library.module._x"
    assert missing((Need(here, "Library._hook", fingerprint(Library._hook)),)) == ""
    assert missing((Need(here, "Library._hook", "0" * 16),)) == (
        f"{here}.Library._hook is not the version checked (its source changed)"
    )


def test_every_fix_that_copies_library_code_declares_the_originals_fingerprint_and_it_matches():
    copies = {"lean_serialization", "lean_references", "lean_models", "param_reads"}
    for fix in FIXES:
        if fix.name in copies:
            assert any(need.source for need in fix.needs), fix.name
    # The suite's process has every fix installed: the originals are read from a fresh import's view.
    for fix in FIXES:
        for need in fix.needs:
            assert need.source == "" or len(need.source) == 16, need


def test_a_fix_that_raises_while_installing_leaves_the_library_as_it_was(monkeypatch):
    def install() -> None:
        Library._hook = lambda self: "patched"  # what a fix changes before it fails
        Library._added = True
        raise KeyError("_gone")

    fake = types.ModuleType("app.upstream.breaks_halfway")
    fake.install = install
    monkeypatch.setitem(sys.modules, "app.upstream.breaks_halfway", fake)
    hook = vars(Library)["_hook"]

    reason = install_one(Fix("breaks_halfway", (), needs=(Need(__name__, "Library._hook"),)))

    assert reason == "raised KeyError while installing: '_gone'; left stock"
    assert vars(Library)["_hook"] is hook and "_added" not in vars(Library)
    assert Library()._hook() == "stock"


def test_a_snapshot_puts_back_replaced_added_and_deleted_names():
    module = types.ModuleType("library_like")
    module._kept, module._dropped = object(), object()
    sys.modules["library_like"] = module
    try:
        kept, dropped = module._kept, module._dropped
        snapshot = Snapshot((Need("library_like", "_kept"),))
        module._kept, module._new = object(), object()
        del module._dropped
        snapshot.restore()
        assert module._kept is kept and module._dropped is dropped and not hasattr(module, "_new")
    finally:
        del sys.modules["library_like"]
