"""Which addresses a URL wake hook may reach: the operator's networks, never link-local or cloud metadata.

An agent that sets a URL hook makes the daemon POST to it, from the daemon's
host and network. The rule: every address the URL's host stands for must lie
in one of `allow` (empty: any address) and in none of `deny` (by default
link-local, where cloud metadata services answer, and the metadata addresses
that are not link-local). An IPv4 address mapped into IPv6 is judged as the
IPv4 address it is. It is checked twice: when the hook is set (the literal
address, or what the name resolves to then) and before each POST, on the
addresses the name resolves to at that moment, which is what the sender then
connects to, so a name that resolves elsewhere later (DNS rebinding) is caught.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from fabricd.core.errors import InvalidArgument

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_DENY = (
    "169.254.0.0/16",  # IPv4 link-local: AWS, GCP, Azure and OpenStack metadata at 169.254.169.254
    "fe80::/10",  # IPv6 link-local
    "fd00:ec2::254/128",  # AWS metadata over IPv6
    "100.100.100.200/32",  # Alibaba Cloud metadata
    "168.63.129.16/32",  # Azure's host endpoint (WireServer)
)


def networks(texts: Iterable[str]) -> tuple[Network, ...]:
    """CIDR networks (a bare address is its own /32 or /128); ValueError naming the bad one."""
    out = []
    for text in texts:
        try:
            out.append(ipaddress.ip_network(text.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{text!r} is not a network like 10.0.0.0/8, fd00::/8 or 192.0.2.7") from None
    return tuple(out)


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """The networks URL hooks may reach (empty `allow`: any) and those they may never reach."""

    allow: tuple[Network, ...] = ()
    deny: tuple[Network, ...] = networks(DEFAULT_DENY)

    def refusal(self, address: str) -> str:
        """Why a hook may not reach `address` (an IP address's text); "" when it may."""
        ip: Address = ipaddress.ip_address(address.split("%", 1)[0])  # a scope id names an interface, not a host
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        for net in self.deny:
            if ip.version == net.version and ip in net:
                return f"{ip} is in {net}, which wake.deny_networks refuses"
        if self.allow and not any(ip.version == net.version and ip in net for net in self.allow):
            return f"{ip} is in none of wake.allow_networks ({', '.join(map(str, self.allow))})"
        return ""


def literal(host: str) -> str | None:
    """`host` as an IP address's text when it is one (brackets of an IPv6 URL host already gone), else None."""
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None
    return host


def not_allowed(url: str, host: str, why: str) -> InvalidArgument:
    return InvalidArgument(f"hook.url {url!r}: the daemon may not POST to {host}: {why}; ask the operator to "
                           "allow it (wake.allow_networks, wake.deny_networks), or use another host",
                           reason="WAKE_HOST_NOT_ALLOWED", field="hook.url", host=host)


def check(policy: HostPolicy, url: str, host: str, addresses: Iterable[str]) -> None:
    """Refuse (WAKE_HOST_NOT_ALLOWED) when any address `host` stands for is one hooks may not reach."""
    for address in addresses:
        why = policy.refusal(address)
        if why:
            raise not_allowed(url, host, why)
