"""``panelot-host extension pack``: the store zip, the signed CRX3 and its update.xml.

The CRX is read back here by the format's own rules (magic, version, header length, the
``CrxFileHeader`` message) and its signature checked with the public key it carries;
``tests/e2e/test_wheel.py`` has Chromium itself install it through policy.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import struct
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from tests.e2e.harness import EXTENSION

from panelot_host.cli.extension_cmd import run_pack
from panelot_host.install.extension_pack import PackError, pack_extension


def _fields(message: bytes) -> list[tuple[int, bytes]]:
    """A protocol buffer message of length-delimited fields, decoded."""

    def varint(at: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = message[at]
            value |= (byte & 0x7F) << shift
            at, shift = at + 1, shift + 7
            if not byte & 0x80:
                return value, at

    fields, at = [], 0
    while at < len(message):
        key, at = varint(at)
        assert key & 7 == 2, "only length-delimited fields"
        size, at = varint(at)
        fields.append((key >> 3, message[at : at + size]))
        at += size
    return fields


def _read_crx(data: bytes) -> tuple[bytes, bytes, bytes, bytes]:
    """(public key, signature, signed header data, zip) of a CRX3 file."""
    assert data[:4] == b"Cr24"
    version, header_size = struct.unpack("<II", data[4:12])
    assert version == 3
    header = dict(_fields(data[12 : 12 + header_size]))
    proof = dict(_fields(header[2]))
    return proof[1], proof[2], header[10000], data[12 + header_size :]


def _id(public_der: bytes) -> str:
    digest = hashlib.sha256(public_der).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def test_the_store_zip_is_the_extension_without_its_key_and_the_same_each_time(
    tmp_path: Path,
) -> None:
    first = pack_extension(EXTENSION, tmp_path / "a")
    second = pack_extension(EXTENSION, tmp_path / "b")
    assert first.store_zip.name == f"panelot-{first.version}.zip"
    assert first.store_zip.read_bytes() == second.store_zip.read_bytes()
    assert first.crx is None and first.update_xml is None
    with zipfile.ZipFile(first.store_zip) as archive:
        assert archive.testzip() is None
        manifest = json.loads(archive.read("manifest.json"))
        names = set(archive.namelist())
    original = json.loads((EXTENSION / "manifest.json").read_text("utf-8"))
    assert "key" not in manifest and "update_url" not in manifest
    assert manifest == {k: v for k, v in original.items() if k != "key"}
    assert {"worker.js", "sidepanel.html", "vendor/marked.esm.js"} <= names


def test_the_crx_is_signed_by_its_key_and_update_xml_offers_it(tmp_path: Path) -> None:
    key_file = tmp_path / "keys" / "panelot.pem"
    packed = pack_extension(
        EXTENSION, tmp_path / "out", signing_key=key_file, update_base_url="https://intra.example/p"
    )
    assert packed.crx is not None and packed.update_xml is not None
    assert key_file.stat().st_mode & 0o077 == 0  # the key is the ID: owner-only
    public, signature, signed_data, archive = _read_crx(packed.crx.read_bytes())
    key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    assert isinstance(key, rsa.RSAPrivateKey)
    assert public == key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert dict(_fields(signed_data)) == {1: hashlib.sha256(public).digest()[:16]}
    signed = b"CRX3 SignedData\x00" + struct.pack("<I", len(signed_data)) + signed_data + archive
    key.public_key().verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
    assert packed.crx_id == _id(public)
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(archive)).read("manifest.json"))
    assert manifest["update_url"] == "https://intra.example/p/update.xml"
    assert "key" not in manifest
    ns = {"u": "http://www.google.com/update2/response"}
    app = ElementTree.fromstring(packed.update_xml.read_text("utf-8")).find("u:app", ns)
    assert app is not None and app.get("appid") == packed.crx_id
    check = app.find("u:updatecheck", ns)
    assert check is not None
    assert check.get("codebase") == f"https://intra.example/p/panelot-{packed.version}.crx"
    assert check.get("version") == packed.version
    again = pack_extension(EXTENSION, tmp_path / "next", signing_key=key_file)
    assert again.crx_id == packed.crx_id  # the same key, the same extension


@pytest.mark.parametrize("kind", ["not a key", "ec"])
def test_a_key_that_cannot_sign_a_crx_is_refused(tmp_path: Path, kind: str) -> None:
    key_file = tmp_path / "key.pem"
    if kind == "ec":
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        key_file.write_bytes(pem)
    else:
        key_file.write_text("hello", "utf-8")
    with pytest.raises(PackError, match="key"):
        pack_extension(EXTENSION, tmp_path / "out", signing_key=key_file)


def test_the_command_names_the_files_the_id_and_the_install_line(tmp_path: Path) -> None:
    out = io.StringIO()
    options = argparse.Namespace(
        out=tmp_path / "out", key=tmp_path / "k.pem", update_url="http://127.0.0.1:9/x/"
    )
    assert run_pack(options, out=out) == 0
    report = out.getvalue()
    crx_id = report.split("extension ID ")[1][:32]
    assert f"panelot-host install --extension-id {crx_id}" in report
    assert f"{crx_id};http://127.0.0.1:9/x/update.xml" in report
    refused = argparse.Namespace(out=tmp_path / "o2", key=None, update_url="http://x/")
    assert run_pack(refused, out=io.StringIO()) == 1
