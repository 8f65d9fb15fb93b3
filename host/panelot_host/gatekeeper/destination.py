"""Where a call that loads a URL goes: its destination is its target (issue 33).

A navigation is decided by the origin it reaches, never by the origin it leaves: a grant
to navigate *on* a site would otherwise cover leaving it for any other. The shim reports
the tab (where it is now); this module makes the destination the target and keeps the
tab's place beside it for the approval card.

The origin is computed here, with the WHATWG URL rules that matter for an origin (tabs and
newlines dropped, backslashes as slashes in http(s), user info dropped, host lowercased
and IDNA-encoded, default ports dropped). The extension checks, right before it loads the
URL, that the browser's own parser gives the same origin, and refuses otherwise: a parser
difference can make a navigation fail, never land somewhere else than decided.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from panelot_host.errors import ToolError
from panelot_host.tools.target import Target

_DEFAULT_PORTS = {"http": 80, "https": 443}
_DROPPED = re.compile(r"[\t\n\r]")
_EDGES = "".join(chr(c) for c in range(0x21))  # C0 controls and space, stripped at both ends


def destination_origin(url: str) -> str:
    """The origin a browser would load ``url`` in: ``scheme://host[:port]`` for http(s),
    ``scheme:`` for other schemes (``about:blank`` -> ``about:``, as the extension says).

    Raises:
        ToolError: ``url`` is not an absolute URL with a host.
    """
    cleaned = _DROPPED.sub("", url.strip(_EDGES))
    scheme, colon, rest = cleaned.partition(":")
    if not colon or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.\-]*", scheme):
        raise ToolError(f"{url!r} is not an absolute URL (e.g. https://example.com/)")
    scheme = scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        return f"{scheme}:"
    rest = rest.replace("\\", "/")
    authority = rest.lstrip("/").split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    try:
        parts = urlsplit(f"{scheme}://{authority}")
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise ToolError(f"{url!r} has an invalid host or port: {exc}") from exc
    if not host:
        raise ToolError(f"{url!r} has no host")
    host = _idna(host)
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def _idna(host: str) -> str:
    if host.isascii():
        return host.lower()
    try:
        return host.encode("idna").decode("ascii").lower()
    except UnicodeError as exc:
        raise ToolError(f"the host {host!r} is not a valid domain name") from exc


def destination_target(tab: Target, args: Mapping[str, Any], argument: str) -> Target:
    """The target of a call that loads ``args[argument]``: that URL and its origin, in the
    tab the shim reported (``tab``), whose place is kept as ``current_url``/``current_origin``.
    Without the argument (a blank new tab) the call loads nothing: ``tab`` stands.

    Raises:
        ToolError: the URL is not an absolute URL with a host.
    """
    url = args.get(argument)
    if not isinstance(url, str):
        return tab
    return Target(
        tab_id=tab.tab_id,
        url=url,
        origin=destination_origin(url),
        title=tab.title,
        current_url=tab.url,
        current_origin=tab.origin,
    )
