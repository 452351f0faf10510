"""The architecture, checked: import direction, generated code, the proto lint, the public API."""

from __future__ import annotations

import ast
import io
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tokenize

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DAEMON = ROOT / "fabricd"


def imports_of(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def modules_importing(prefix: str) -> set[str]:
    found = set()
    for path in DAEMON.rglob("*.py"):
        if any(name == prefix or name.startswith(prefix + ".") for name in imports_of(path)):
            found.add(path.relative_to(DAEMON).parts[0] if len(path.relative_to(DAEMON).parts) > 1 else path.name)
    return found


def test_core_imports_no_grpc_lmdb_or_protobuf() -> None:
    for path in (DAEMON / "core").rglob("*.py"):
        bad = {n for n in imports_of(path) if n.split(".")[0] in {"grpc", "lmdb", "google"}
               or n.startswith(("fabricd.v1", "fabricd.store", "fabricd.rpc", "fabricd.daemon", "fabricd.wire"))}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_only_the_store_imports_lmdb() -> None:
    assert modules_importing("lmdb") == {"store"}
    for path in (DAEMON / "store").rglob("*.py"):
        if "lmdb" in imports_of(path):
            assert path.parent.name == "lmdb", f"{path.relative_to(ROOT)} imports lmdb outside store/lmdb/"


def test_rpc_and_daemon_see_the_store_only_through_the_port() -> None:
    """rpc imports no store at all; the daemon reaches a backend only through open_store."""
    for path in (DAEMON / "rpc").rglob("*.py"):
        bad = {n for n in imports_of(path) if n.startswith("fabricd.store") or n.split(".")[0] == "lmdb"}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"
    app = imports_of(DAEMON / "daemon" / "app.py")
    assert {n for n in app if n.startswith("fabricd.store")} == {"fabricd.store"}


def test_the_core_services_use_the_port_not_the_key_value_scripts() -> None:
    """Only fabricd.core.kv (the scripts for key-value backends) knows RecordTx; the services see ports."""
    for path in (DAEMON / "core").glob("*.py"):
        bad = {n for n in imports_of(path) if n.startswith("fabricd.core.kv")}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_only_the_rpc_layer_imports_grpc() -> None:
    assert modules_importing("grpc") <= {"rpc"}


def test_no_top_level_fabric_package_is_installed() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert '"fabric"' not in text and "'fabric'" not in text.replace("fabric =", "")


def test_generated_stubs_match_the_protos() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen-protos"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def buf_binary() -> str:
    for candidate in (os.environ.get("FABRICD_BUF"), str(ROOT / ".tools" / "node_modules" / ".bin" / "buf"),
                      shutil.which("buf")):
        if candidate and os.path.exists(candidate):
            return candidate
    pytest.fail("the buf CLI is missing: `python3 scripts/dev test` installs it from npm (@bufbuild/buf)")


def test_buf_lint_passes_on_the_protos() -> None:
    result = subprocess.run([buf_binary(), "lint"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_client_public_api_is_pinned() -> None:
    import fabricd.client

    assert fabricd.client.__all__ == [
        "Aborted", "AddressLike", "AgentWork", "AmbiguousNameWarning", "AlreadyExists", "Client", "ClientTls", "DeadlineExceeded", "FabricError",
        "FailedPrecondition", "InternalError", "InvalidArgument", "NotFound", "Page", "PermissionDenied", "QueuedJob",
        "Replier",
        "ResourceExhausted", "SendResult", "Subscription", "SyncClient", "SyncSubscription", "Unauthenticated", "Unavailable",
        "address",
        "agent_job", "conflict_holders", "decode_agent_job", "from_rpc_error", "from_status",
    ]


def test_buf_breaking_finds_no_break_against_the_released_api() -> None:
    result = subprocess.run([buf_binary(), "breaking", "protos", "--against", "api/fabricd-v1-released.binpb"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_buf_breaking_would_catch_a_renamed_field(tmp_path) -> None:
    shutil.copytree(ROOT / "protos", tmp_path / "protos")
    shutil.copytree(ROOT / "third_party", tmp_path / "third_party")
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    proto = tmp_path / "protos" / "fabricd" / "v1" / "types.proto"
    proto.write_text(proto.read_text().replace("string thread_id = 5;", "string thread = 5;"))
    result = subprocess.run([buf_binary(), "breaking", "protos", "--against",
                             str(ROOT / "api" / "fabricd-v1-released.binpb")], cwd=tmp_path, capture_output=True,
                            text=True)
    assert result.returncode != 0 and "thread_id" in result.stdout + result.stderr


def test_no_two_daemon_classes_share_a_name() -> None:
    """A class name says what it is: two `Request`s or two `Notifier`s in different modules read as one."""
    seen: dict[str, list[str]] = {}
    for path in sorted(DAEMON.rglob("*.py")):
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ClassDef):
                seen.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_every_package_is_in_the_distribution() -> None:
    """pyproject lists packages by hand: a package missing there works editable and breaks `pip install`."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(project["packages"])
    dirs = {"fabricd": ROOT / "fabricd", **{name: ROOT / path for name, path in project["package-dir"].items()}}
    found = set()
    for name, folder in dirs.items():
        for init in folder.rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                rel = init.parent.relative_to(folder).parts
                found.add(".".join((name, *rel)))
    assert found == listed


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def daemon_modules() -> dict[str, pathlib.Path]:
    return {module_name(path): path for path in sorted(DAEMON.rglob("*.py"))}


def imported_modules(path: pathlib.Path, known: set[str]) -> set[str]:
    """Every module of `known` that `path` imports, at the top, in a function or under TYPE_CHECKING."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{alias.name}" for alias in node.names} & known
            found.update(subs or ({node.module} & known))
    return found


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found




def test_no_import_circles_in_the_daemon_or_the_scripts() -> None:
    """A circle hides the layering: two modules that import each other (even inside a function) are one module."""
    modules = daemon_modules()
    graph = {name: imported_modules(path, set(modules)) - {name} for name, path in modules.items()}
    found = circles(graph)
    assert found == []
    scripts = {path.stem: path for path in (ROOT / "scripts").glob("*.py")}
    assert circles({name: imported_modules(path, set(scripts)) - {name} for name, path in scripts.items()}) == []


KNOWN_PRIVATE_USES: set[tuple[str, str]] = set()
"""(module, private name of another module) pairs allowed for now: none."""


def private_uses(source: str, me: str, modules: set[str]) -> set[str]:
    """Names starting with one underscore that module `me` takes from another: `from m import _x` or `m._x`."""
    tree = ast.parse(source)
    aliases: dict[str, str] = {}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module != me:
            for alias in node.names:
                if f"{node.module}.{alias.name}" in modules:
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.add(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            aliases.update({alias.asname: alias.name for alias in node.names if alias.asname and alias.name in modules})
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            found.add(f"{aliases[node.value.id]}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_names() -> None:
    """A name starting with `_` is its module's own: another module that needs it asks for a public name."""
    modules = daemon_modules()
    found = {(str(path.relative_to(ROOT)), name) for module, path in modules.items()
             for name in private_uses(path.read_text(), module, set(modules))}
    assert sorted(found - KNOWN_PRIVATE_USES) == []


def test_the_layout_checks_see_a_circle_and_a_private_name() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    source = "from fabricd.x import _hidden, shown\nfrom fabricd import y\nimport fabricd.z as z\ny._inner(z._c, z.d)\n"
    assert private_uses(source, "fabricd.m", {"fabricd.x", "fabricd.y", "fabricd.z"}) == {
        "fabricd.x._hidden", "fabricd.y._inner", "fabricd.z._c"}
    assert private_uses("from fabricd.m import _own\n", "fabricd.m", {"fabricd.m"}) == set()


def tool(name: str) -> str:
    path = pathlib.Path(sys.executable).parent / name
    if not path.exists():
        pytest.fail(f"{name} is missing: `python3 scripts/dev test` installs the test extra (pyproject.toml)")
    return str(path)


def test_ruff_finds_nothing() -> None:
    """The lint rules chosen in pyproject.toml ([tool.ruff.lint]); `ruff check --fix` mends most findings."""
    result = subprocess.run([tool("ruff"), "check", "--quiet", "--output-format", "concise", "."], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing() -> None:
    """Strict on fabricd/core and fabricd/store, as written elsewhere ([tool.mypy] in pyproject.toml)."""
    result = subprocess.run([tool("mypy"), "--no-error-summary", "--cache-dir", str(ROOT / ".mypy_cache")], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


IGNORE_WITH_REASON = re.compile(r"# type: ignore\[[a-z-]+(, ?[a-z-]+)*\]  # \S")


def unexplained_ignores(source: str) -> list[int]:
    """Lines whose `type: ignore` lacks its error code or its reason: `# type: ignore[code]  # why`."""
    return [token.start[0] for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.COMMENT and re.search(r"type:\s*ignore", token.string)
            and not IGNORE_WITH_REASON.search(token.string)]


def test_every_type_ignore_in_fabricd_names_its_code_and_why() -> None:
    """mypy drops the unused ones (warn_unused_ignores); a kept one says what mypy cannot see, for the next reader."""
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sorted(DAEMON.rglob("*.py*"))
             if path.suffix in (".py", ".pyi") for line in unexplained_ignores(path.read_text())]
    assert not found, "add the reason (`# type: ignore[code]  # why`) or a real type:\n" + "\n".join(found)


def test_unexplained_ignores_finds_bare_and_reasonless_ones_only() -> None:
    source = ("a = 1  # type: ignore\nb = 2  # type: ignore[assignment]\nc = 3  # type: ignore[misc]  # why\n"
              "d = 4  # type:ignore[misc]\ne = '# type: ignore'\nf = 5  # type: ignore[arg-type, misc]  # why\n")
    assert unexplained_ignores(source) == [1, 2, 4]
