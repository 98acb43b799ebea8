"""The package's architecture: every module imports, no import cycles, the layer contracts hold.

Imports inside functions count (grimp, which import-linter uses, reads every import statement of a
module, wherever it is). The contracts live in pyproject.toml ([tool.importlinter]); the layers and
what each package owns are described in docs/architecture.md.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parents[1]

# The DSL: the modules directly in ttl/ (ttl/__init__.py, the facade on top, may import anything).
DSL_MODULES = (
    "ttl._intrinsic",
    "ttl.block",
    "ttl.devices",
    "ttl.dsl",
    "ttl.errors",
    "ttl.extern",
    "ttl.identity",
    "ttl.math",
    "ttl.operation",
    "ttl.pipes",
    "ttl.options",
    "ttl.semaphore",
    "ttl.source",
    "ttl.specs",
    "ttl.targets",
    "ttl.version",
)
# Lowest first.
LAYERS = ("ttl.compiler", "ttl.device_build", "ttl.runtime", "ttl.host")


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("ttl", cache_dir=None)


@pytest.fixture(scope="module")
def graph_with_externals() -> grimp.ImportGraph:
    return grimp.build_graph("ttl", include_external_packages=True, cache_dir=None)


def test_every_module_imports_in_one_process():
    """Every module of the package, found by walking it, imports next to all the others."""
    proc = _python(
        """
        import importlib, json, pkgutil, traceback
        import ttl

        names, failures = ["ttl"], {}
        def onerror(name):
            failures[name] = traceback.format_exc()
        for info in pkgutil.walk_packages(ttl.__path__, "ttl.", onerror=onerror):
            names.append(info.name)
        for name in names:
            try:
                importlib.import_module(name)
            except BaseException:
                failures[name] = traceback.format_exc()
        print(json.dumps({"modules": names, "failures": failures}))
        """
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert not result["failures"], "\n".join(
        f"{name}:\n{error}" for name, error in result["failures"].items()
    )
    modules = set(result["modules"])
    # The walk really went through the packages (a broken walk would check nothing).
    assert {"ttl.host.cli", "ttl.host.ttlc", "ttl.compiler.driver", *DSL_MODULES} <= modules
    assert all(any(m.startswith(layer + ".") for m in modules) for layer in LAYERS)


def _strongly_connected(nodes: Iterable[str], edges: Mapping[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the strongly connected components, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(edges[succ]))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return components


def _describe_cycle(graph: grimp.ImportGraph, component: list[str]) -> str:
    """The shortest cycle through the component's first module, with each import's line."""
    start = component[0]
    ways_back = [
        graph.find_shortest_chain(importer=succ, imported=start)
        for succ in sorted(graph.find_modules_directly_imported_by(start) & set(component))
    ]
    cycle = [start, *min((w for w in ways_back if w), key=len, default=(start,))]
    steps = []
    for importer, imported in itertools.pairwise(cycle):
        details = graph.get_import_details(importer=importer, imported=imported)
        where = "; ".join(f"line {d['line_number']}: {d['line_contents']}" for d in details)
        steps.append(f"  {importer} -> {imported}   ({where})")
    return f"cycle among {len(component)} modules {component}:\n" + "\n".join(steps)


def test_no_import_cycles_among_ttl_modules(graph):
    nodes = {m for m in graph.modules if m == "ttl" or m.startswith("ttl.")}
    edges = {m: graph.find_modules_directly_imported_by(m) & nodes for m in nodes}
    assert len(nodes) > 50 and sum(map(len, edges.values())) > 100  # the graph is not empty
    cycles = [c for c in _strongly_connected(nodes, edges) if len(c) > 1 or c[0] in edges[c[0]]]
    assert not cycles, "import cycles (imports inside functions count):\n" + "\n".join(
        _describe_cycle(graph, c) for c in cycles
    )


def test_cycle_finder_finds_a_cycle():
    """The cycle check is not vacuous: it finds a planted cycle."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    components = _strongly_connected(edges, edges)
    assert ["a", "b", "c"] in components and ["d"] in components and ["e"] in components


def test_import_linter_contracts():
    """The contracts in pyproject.toml ([tool.importlinter]), as `lint-imports` checks them."""
    proc = _python(
        """
        import sys
        from importlinter.cli import lint_imports
        sys.exit(lint_imports(config_filename="pyproject.toml", no_cache=True, no_logo=True))
        """
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Contracts: 3 kept, 0 broken." in proc.stdout, proc.stdout


def test_contracts_name_every_dsl_module_and_layer():
    """The forbidden contract lists every module directly in ttl/ (except the facade)."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    contracts = {c["type"] + ":" + c["name"]: c for c in config["contracts"]}
    layers = [c for c in contracts.values() if c["type"] == "layers"]
    assert [c["layers"] for c in layers] == [list(reversed(LAYERS))]
    dsl_contract = next(
        c
        for c in contracts.values()
        if c["type"] == "forbidden" and "ttl.dsl" in c["source_modules"]
    )
    on_disk = {f"ttl.{p.stem}" for p in (REPO / "ttl").glob("*.py") if p.name != "__init__.py"}
    assert set(dsl_contract["source_modules"]) == on_disk == set(DSL_MODULES)
    assert set(dsl_contract["forbidden_modules"]) == set(LAYERS)


def test_device_build_imports_the_standard_library_only(graph_with_externals):
    """What ttl.device_build imports, directly or through other ttl modules, is stdlib or ttl."""
    graph = graph_with_externals
    upstream = graph.find_upstream_modules("ttl.device_build", as_package=True)
    assert "os" in upstream  # the graph has the external packages
    # ttnn_program runs as a script under an interpreter that has ttnn (never in the
    # Bazel action tools) and imports ttnn inside a function; nothing else imports it.
    assert graph.find_modules_that_directly_import("ttnn") == {"ttl.device_build.ttnn_program"}
    third_party = sorted(
        m
        for m in upstream
        if m.split(".")[0] not in ("ttl", "ttnn") and m.split(".")[0] not in sys.stdlib_module_names
    )
    chains = [
        " -> ".join(
            min(
                graph.find_shortest_chains(
                    importer="ttl.device_build", imported=m, as_packages=True
                ),
                key=len,
            )
        )
        for m in third_party
    ]
    assert not third_party, "ttl.device_build must import the standard library only:\n" + (
        "\n".join(chains)
    )


def test_device_build_runs_without_third_party_packages():
    """Every ttl.device_build module imports in a process where no third-party package can."""
    proc = _python(
        """
        import importlib, importlib.abc, pkgutil, sys

        class NoThirdParty(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                top = name.split(".")[0]
                if top != "ttl" and top not in sys.stdlib_module_names:
                    raise ImportError(f"third-party import of {name!r}")
                return None

        sys.meta_path.insert(0, NoThirdParty())
        import ttl.device_build as package
        names = [i.name for i in pkgutil.walk_packages(package.__path__, "ttl.device_build.")]
        for name in names:
            importlib.import_module(name)
        print(len(names))
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.split()[-1]) > 0
