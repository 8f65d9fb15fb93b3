"""Whether a host is this machine: the one rule behind "plain http only to localhost", for
the provider base URL (``providers.endpoints``) and MCP URLs (``tools.mcp.config``).

Decided on the literal host, never on how a name begins: ``localhost`` (any case), an IPv4
literal in 127.0.0.0/8, ``::1`` (``[::1]`` in a URL) and IPv4-mapped loopback
(``::ffff:127.0.0.1``). A name that merely looks local (``127.attacker.test``,
``127.0.0.1.nip.io``, ``localhost.attacker.test``) is someone's DNS.

Names ending in ``.localhost`` are refused too: Chrome pins them to loopback, but httpx asks
the OS resolver, which sends them to DNS unless the system is set up otherwise. IPv4
spellings that ``ipaddress`` does not read as one (``127.1``, ``0x7f.0.0.1``,
``2130706433``, ``0177.0.0.1``) are refused although a resolver may map them to 127.0.0.1:
refusing is safe, and ``127.0.0.1`` says the same thing.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def is_loopback_host(host: str | None) -> bool:
    """Whether ``host`` (a URL's hostname, brackets optional) names this machine."""
    if not host:
        return False
    name = host.lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def is_loopback_url(url: str) -> bool:
    """Whether ``url``'s host names this machine (``is_loopback_host``); False for a URL
    that does not parse."""
    try:
        return is_loopback_host(urlsplit(url).hostname)
    except ValueError:
        return False
