"""The extension packed for distribution: a zip for the Chrome Web Store, a signed CRX3 and
its ``update.xml`` for an enterprise's own server (``ExtensionInstallForcelist``).

The store assigns the extension's ID, so the zip's manifest has no ``key``. A CRX's ID is
derived from the key that signs it, so the CRX's manifest has none either, and names the
``update.xml`` Chrome polls for new versions.

The CRX3 format (Chromium's ``components/crx_file``): ``Cr24``, format version 3 and the
header's length as little-endian uint32s, a ``CrxFileHeader`` protocol buffer, then the zip.
The header holds the RSA public key, its PKCS#1 v1.5 SHA-256 signature of
``"CRX3 SignedData\\0"`` + the signed data's length (uint32 LE) + the signed data + the zip,
and the signed data: a ``SignedData`` message holding the CRX ID (the first 16 bytes of the
public key's SHA-256). The three messages are encoded here by hand (length-delimited fields
only) rather than taking a protobuf runtime for them.
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zipfile
from pathlib import Path
from xml.sax.saxutils import quoteattr

import msgspec
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from panelot_host.install.extension import manifest_version
from panelot_host.install.extension_files import extension_files
from panelot_host.private_files import private_file

CRX_MAGIC = b"Cr24"
CRX_FORMAT_VERSION = 3
SIGNATURE_CONTEXT = b"CRX3 SignedData\x00"
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the zip's entries carry no build time: same files, same zip
_PUBLIC_KEY_PROOF = 2  # CrxFileHeader.sha256_with_rsa
_SIGNED_HEADER_DATA = 10000  # CrxFileHeader.signed_header_data
_CRX_ID = 1  # SignedData.crx_id
_PROOF_KEY, _PROOF_SIGNATURE = 1, 2  # AsymmetricKeyProof.public_key, .signature


class PackError(Exception):
    """A pack that cannot be made (the message says why)."""


class Packed(msgspec.Struct, frozen=True):
    """What ``pack_extension`` wrote."""

    version: str
    store_zip: Path
    crx: Path | None = None
    update_xml: Path | None = None
    crx_id: str | None = None


def pack_extension(
    source: Path,
    out: Path,
    *,
    signing_key: Path | None = None,
    update_base_url: str | None = None,
) -> Packed:
    """Write ``panelot-<version>.zip`` into ``out`` and, given a signing key, the CRX and
    (given the URL they will be served from) ``update.xml``.

    Raises:
        ExtensionIncomplete: ``source`` lacks a file the extension needs.
        PackError: an unusable signing key, or an update URL without a key.
        OSError: a file cannot be written.
    """
    if update_base_url is not None and signing_key is None:
        raise PackError("--update-url needs --key: update.xml describes a signed .crx")
    version = manifest_version(source)
    out.mkdir(parents=True, exist_ok=True)
    store_zip = out / f"panelot-{version}.zip"
    store_zip.write_bytes(extension_zip(source, manifest_changes={"key": None}))
    if signing_key is None:
        return Packed(version=version, store_zip=store_zip)
    key = load_or_create_key(signing_key)
    base = _with_slash(update_base_url) if update_base_url else None
    crx_name = f"panelot-{version}.crx"
    update_url = f"{base}update.xml" if base else None
    archive = extension_zip(source, manifest_changes={"key": None, "update_url": update_url})
    crx = out / crx_name
    crx.write_bytes(crx3(archive, key))
    crx_id = extension_id_of(key.public_key())
    update_xml = None
    if base is not None:
        update_xml = out / "update.xml"
        update_xml.write_text(update_manifest(crx_id, version, f"{base}{crx_name}"), "utf-8")
    return Packed(
        version=version, store_zip=store_zip, crx=crx, update_xml=update_xml, crx_id=crx_id
    )


def extension_zip(source: Path, *, manifest_changes: dict[str, str | None]) -> bytes:
    """The extension's files as a zip, its manifest changed (a None value removes the key).

    Raises:
        ExtensionIncomplete: ``source`` lacks a file the extension needs.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for relative in extension_files(source):
            data = source.joinpath(*relative.parts).read_bytes()
            if relative.as_posix() == "manifest.json":
                data = _changed_manifest(data, manifest_changes)
            entry = zipfile.ZipInfo(relative.as_posix(), date_time=_FIXED_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            archive.writestr(entry, data)
    return buffer.getvalue()


def _changed_manifest(data: bytes, changes: dict[str, str | None]) -> bytes:
    manifest = json.loads(data)
    for name, value in changes.items():
        if value is None:
            manifest.pop(name, None)
        else:
            manifest[name] = value
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()


def load_or_create_key(path: Path) -> rsa.RSAPrivateKey:
    """The RSA key in the PEM file ``path``; a new 2048-bit key written there (owner-only)
    when the file does not exist. The key is the CRX's identity: keep it for every release.

    Raises:
        PackError: the file holds no unencrypted RSA private key.
    """
    if not path.exists():
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        private_file(path).write_bytes(pem)
        return key
    try:
        loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError) as exc:
        raise PackError(f"{path} is not an unencrypted PEM private key: {exc}") from exc
    if not isinstance(loaded, rsa.RSAPrivateKey):
        raise PackError(f"{path} holds a {type(loaded).__name__}; a CRX is signed with RSA")
    return loaded


def crx3(archive: bytes, key: rsa.RSAPrivateKey) -> bytes:
    """``archive`` (a zip) signed with ``key`` as a CRX3 file."""
    public = _public_der(key.public_key())
    signed_data = _field(_CRX_ID, _crx_id_bytes(public))
    message = SIGNATURE_CONTEXT + struct.pack("<I", len(signed_data)) + signed_data + archive
    signature = key.sign(message, padding.PKCS1v15(), hashes.SHA256())
    proof = _field(_PROOF_KEY, public) + _field(_PROOF_SIGNATURE, signature)
    header = _field(_PUBLIC_KEY_PROOF, proof) + _field(_SIGNED_HEADER_DATA, signed_data)
    return CRX_MAGIC + struct.pack("<II", CRX_FORMAT_VERSION, len(header)) + header + archive


def extension_id_of(public_key: rsa.RSAPublicKey) -> str:
    """The 32-letter ID Chrome gives the extension signed by ``public_key``."""
    return "".join(
        chr(ord("a") + b)
        for byte in _crx_id_bytes(_public_der(public_key))
        for b in (byte >> 4, byte & 15)
    )


def update_manifest(extension_id: str, version: str, crx_url: str) -> str:
    """The ``update.xml`` (Chrome's update manifest) offering ``crx_url`` as ``version``."""
    return (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        "<gupdate xmlns='http://www.google.com/update2/response' protocol='2.0'>\n"
        f"  <app appid={quoteattr(extension_id)}>\n"
        f"    <updatecheck codebase={quoteattr(crx_url)} version={quoteattr(version)} />\n"
        "  </app>\n"
        "</gupdate>\n"
    )


def _public_der(public_key: rsa.RSAPublicKey) -> bytes:
    return public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def _crx_id_bytes(public_der: bytes) -> bytes:
    return hashlib.sha256(public_der).digest()[:16]


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited protocol buffer field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _with_slash(url: str) -> str:
    return url if url.endswith("/") else url + "/"
