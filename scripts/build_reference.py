"""Build the SDK reference (HTML, from the docstrings) with pdoc, and refuse any warning.

Run ``.venv/bin/python scripts/build_reference.py`` (or with ``--out DIR``); open
``build/reference/index.html``. The pages are built on demand and not checked in
(``build/`` is ignored by git): the docstrings are the source, and a copy in the tree
would only go stale. tests/test_build_reference.py builds it on every test run, so CI
fails on a warning.

What counts as a warning:

* anything pdoc warns about: a name in ``__all__`` that does not resolve, a type
  annotation it cannot evaluate, an ``.. include::`` it cannot read;
* a cross-reference in a docstring that points nowhere: a reST role such as
  ``:class:`~arena.sdk.turn.Turn``` or ``:meth:`give``` whose target is neither in the
  documented object's class, nor in its module, nor an importable dotted name. pdoc
  itself shows such a reference as plain code without a word, so a renamed function
  would leave the reference silently pointing nowhere.

The SDK imports some names on first use (``arena.sdk._LAZY``, to keep a bot's start-up
cheap); they are loaded here first, so the reference documents every name of
``arena.sdk.__all__``.
"""

from __future__ import annotations

import argparse
import builtins
import importlib
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import pdoc
import pdoc.doc
import pdoc.render

ROOT: Final = Path(__file__).resolve().parent.parent
DEFAULT_OUT: Final = ROOT / "build" / "reference"
MODULES: Final = ("arena.sdk", "arena.game.observation")
"""What a bot author reads: the SDK (its ``__all__`` re-exports the engine's cards, trump
calls, observation and decisions) and the observation's parts (tricks, exchange legs,
shows, hand summaries)."""

ROLE: Final = re.compile(
    r":(?:py:)?(?:class|func|meth|attr|data|const|mod|exc|obj):`"
    r"(?:[^`<]*<)?~?\.?(?P<target>[A-Za-z_][\w.]*)(?:\(\))?>?`"
)
"""A reST cross-reference role (``:class:`X```, ``:meth:`~a.b.C.d```, ``:func:`title <x>```)."""


class ReferenceWarning(UserWarning):
    """A docstring cross-reference that points nowhere."""


def load_lazy_names(module_name: str) -> None:
    """Import the names *module_name* loads on first use, so pdoc finds them in it."""
    module = importlib.import_module(module_name)
    for name in getattr(module, "__all__", ()):
        if name not in vars(module) and hasattr(module, name):  # else pdoc warns
            setattr(module, name, getattr(module, name))


def _walk(doc: pdoc.doc.Doc[Any]) -> Iterator[pdoc.doc.Doc[Any]]:
    """*doc* and every member documented under it (classes' members and a package's
    submodules included)."""
    yield doc
    if isinstance(doc, pdoc.doc.Namespace):
        for member in doc.own_members:
            yield from _walk(member)
    if isinstance(doc, pdoc.doc.Module):
        for submodule in doc.submodules:
            yield from _walk(submodule)


def _follows(start: object, names: Sequence[str]) -> bool:
    """Whether ``start.names[0].names[1]...`` exists (its last name may be an annotated
    attribute of a class, which has no class-level value)."""
    current = start
    for position, name in enumerate(names):
        try:
            current = getattr(current, name)
        except AttributeError:
            return position == len(names) - 1 and _annotated(current, name)
    return True


def _annotated(owner: object, name: str) -> bool:
    """Whether a class along *owner*'s MRO declares *name* (a field or attribute that is
    annotated but has no class-level value, such as one set in ``__init__``)."""
    return any(
        name in getattr(klass, "__annotations__", {}) for klass in getattr(owner, "__mro__", ())
    )


def resolves(target: str, module: ModuleType, owner: object | None) -> bool:
    """Whether the cross-reference *target* names something: relative to the documented
    object's class (*owner*), its module, the builtins, or as an absolute dotted name."""
    first, *rest = target.split(".")
    for scope in (owner, module, builtins):
        if scope is None:
            continue
        if _follows(scope, [first, *rest]):
            return True
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return _follows(found, parts[cut:])
    return False


def broken_references(modules: Sequence[pdoc.doc.Module]) -> list[str]:
    """``fullname: :role:`target``` for every docstring reference that points nowhere."""
    found = []
    for module in modules:
        for doc in _walk(module):
            if not doc.docstring:
                continue
            home = sys.modules.get(doc.taken_from[0]) or sys.modules[doc.modulename]
            owner: object | None = doc.obj if isinstance(doc, pdoc.doc.Class) else None
            if owner is None and "." in doc.qualname:
                owner = _owner_class(home, doc.qualname)
            for match in ROLE.finditer(doc.docstring):
                if not resolves(match["target"], home, owner):
                    found.append(f"{doc.fullname}: {match.group()} points nowhere")
    return found


def _owner_class(module: ModuleType, qualname: str) -> object | None:
    """The class a member *qualname* (``Class.member``) belongs to."""
    current: object = module
    for name in qualname.split(".")[:-1]:
        current = getattr(current, name, None)
        if current is None:
            return None
    return current


def build(out: Path, modules: Sequence[str] = MODULES, *, search: bool = True) -> list[str]:
    """Write the reference of *modules* into *out*; returns every warning (empty: clean).

    *search*: with pdoc's search box, whose index pdoc precompiles with ``nodejs`` when
    that is installed (a child process; the tests build without it).
    """
    for name in modules:
        load_lazy_names(name)
    pdoc.render.configure(
        docformat="restructuredtext",
        show_source=False,
        search=search,
        footer_text="952 Arena: the bot SDK",
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*modules, output_directory=out)
        documented = [pdoc.doc.Module.from_name(name) for name in modules]
        broken = broken_references(documented)
    return [f"{w.category.__name__}: {w.message}" for w in caught] + broken


def main(argv: Sequence[str] | None = None) -> int:
    """Build; exit 1 (listing them) on any warning."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument("--no-search", action="store_true", help="leave out the search box")
    parser.add_argument("modules", nargs="*", default=list(MODULES), help="modules to document")
    args = parser.parse_args(argv)
    problems = build(args.out, args.modules, search=not args.no_search)
    for problem in problems:
        print(f"build_reference: {problem}", file=sys.stderr)
    if problems:
        print(f"build_reference: {len(problems)} warning(s): fix the docstrings", file=sys.stderr)
        return 1
    print(f"reference written to {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
