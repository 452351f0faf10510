"""buf.gen.yaml generates Go, Java, C++ and TypeScript stubs offline, with the package options and imports right.

The stubs are generated, not compiled: that needs each language's toolchain and
libraries. What is checked is what a user would trip on first: each language's
package or namespace, the service stubs, and imports that resolve to files
generated alongside (or, for Go, to the published google.rpc package).
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess

import pytest

from tests.test_layout import buf_binary

ROOT = pathlib.Path(__file__).resolve().parent.parent
NPM_BIN = ROOT / ".tools" / "node_modules" / ".bin"
SERVICES = ("AdminService", "AgentDirectoryService", "DirectoryService", "MailboxService", "OutboxService",
            "RendezvousService")
FILES = ("admin_service", "agent_directory_service", "directory_service", "mailbox_service", "outbox_service",
         "rendezvous_service", "types")
# The local plugins buf.gen.yaml names, and where `python3 scripts/dev test` installs each from.
PLUGINS = {
    "protoc": "Debian package protobuf-compiler",
    "protoc-gen-go": "Debian package protoc-gen-go",
    "protoc-gen-go-grpc": "Debian package protoc-gen-go-grpc",
    "grpc_java_plugin": "Debian package protobuf-compiler-grpc-java-plugin",
    "grpc_cpp_plugin": "Debian package protobuf-compiler-grpc",
    "protoc-gen-ts_proto": "npm package ts-proto, into .tools/",
}


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    path = os.pathsep.join([str(NPM_BIN), os.environ.get("PATH", "")])
    missing = [f"{plugin} ({source})" for plugin, source in PLUGINS.items() if shutil.which(plugin, path=path) is None]
    assert not missing, f"buf.gen.yaml's plugins are missing: {', '.join(missing)}; `python3 scripts/dev test` " \
                        "installs them"
    out = tmp_path_factory.mktemp("stubs")
    result = subprocess.run([buf_binary(), "generate", "--template", "buf.gen.yaml", "-o", str(out)], cwd=ROOT,
                            capture_output=True, text=True, env=dict(os.environ, PATH=path), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "gen"


def test_go_stubs_are_package_fabricdv1_with_grpc_clients_and_the_published_google_rpc(gen: pathlib.Path) -> None:
    folder = gen / "go" / "fabricd" / "v1"
    for name in FILES:
        assert re.search(r"^package fabricdv1$", (folder / f"{name}.pb.go").read_text(), re.M), name
    for service, name in zip(SERVICES, FILES[:-1], strict=True):
        assert f"func New{service}Client(" in (folder / f"{name}_grpc.pb.go").read_text()
    imports = set(re.findall(r'^\s+\w*\s*"([^"]+)"$', "".join(p.read_text() for p in folder.glob("*.go")), re.M))
    assert "google.golang.org/genproto/googleapis/rpc/status" in imports
    # Files of one proto package share one Go package, so none imports another of ours; beyond the standard
    # library only the Go protobuf and gRPC modules and the published google.rpc package are needed.
    allowed = ("google.golang.org/protobuf/", "google.golang.org/grpc", "google.golang.org/genproto/googleapis/rpc/")
    third_party = {i for i in imports if "." in i.split("/")[0]}
    assert all(i.startswith(allowed) for i in third_party), third_party


def test_java_stubs_are_one_class_per_message_in_dev_fabricd_v1_with_grpc_stubs(gen: pathlib.Path) -> None:
    folder = gen / "java" / "dev" / "fabricd" / "v1"
    for service in SERVICES:
        grpc_class = (folder / f"{service}Grpc.java").read_text()
        assert grpc_class.startswith("package dev.fabricd.v1;") or "\npackage dev.fabricd.v1;" in grpc_class
        assert f"public static {service}BlockingStub newBlockingStub(" in grpc_class
        assert (folder / f"{service}Proto.java").exists()  # java_outer_classname, not ...OuterClass
    assert "package dev.fabricd.v1;" in (folder / "SendMessageRequest.java").read_text()  # java_multiple_files
    error_info = gen / "java" / "com" / "google" / "rpc" / "ErrorInfo.java"
    assert "package com.google.rpc;" in error_info.read_text()


def test_cpp_stubs_include_only_files_generated_beside_them_or_the_libraries(gen: pathlib.Path) -> None:
    folder = gen / "cpp"
    for service, name in zip(SERVICES, FILES[:-1], strict=True):
        header = (folder / "fabricd" / "v1" / f"{name}.grpc.pb.h").read_text()
        assert f"class {service} final" in header and "namespace v1 {" in header
    assert "class ErrorInfo final" in (folder / "google" / "rpc" / "error_details.pb.h").read_text()
    for source in folder.rglob("*.pb.*"):
        for include in re.findall(r'^#include "([^"]+)"', source.read_text(), re.M):
            assert include.startswith(("google/protobuf/", "grpcpp/")) or (folder / include).exists(), \
                f"{source.relative_to(folder)} includes {include}, which was not generated"


def test_typescript_stubs_have_grpc_js_clients_and_every_relative_import_resolves(gen: pathlib.Path) -> None:
    folder = gen / "ts"
    for service, name in zip(SERVICES, FILES[:-1], strict=True):
        text = (folder / "fabricd" / "v1" / f"{name}.ts").read_text()
        assert f"export const {service}Client = makeGenericClientConstructor(" in text
        assert '"@grpc/grpc-js"' in text
    assert "export interface ErrorInfo" in (folder / "google" / "rpc" / "error_details.ts").read_text()
    for source in folder.rglob("*.ts"):
        for module in re.findall(r'from "(\.[^"]+)"', source.read_text()):
            assert (source.parent / f"{module}.ts").resolve().exists(), f"{source.relative_to(folder)}: {module}"
        packages = set(re.findall(r'from "([^.][^"]*)"', source.read_text()))
        assert packages <= {"@grpc/grpc-js", "@bufbuild/protobuf/wire"}, f"{source.relative_to(folder)}: {packages}"
