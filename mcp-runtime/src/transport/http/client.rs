//! Who a client is, for the bound on the sessions one client may hold:
//! the subject of its token with auth; otherwise its address, which is the
//! peer's, or, when the peer is a proxy the operator trusts
//! ([`Server::trusted_proxies`](crate::Server::trusted_proxies)), the
//! address that proxy forwarded (`Forwarded` or `X-Forwarded-For`; with
//! both, only if they agree).
//! IPv6 addresses count by their /64, the block one host is given.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use axum::http::HeaderMap;

use crate::auth::Identity;

/// One client, as the per-client bound counts them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Client {
    /// The subject of its access token.
    Subject(Box<str>),
    /// Its address (an IPv6 one cut to its /64).
    Address(IpAddr),
}

/// An address, or a block of them (`10.0.0.0/8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    base: IpAddr,
    bits: u8,
}

impl Block {
    /// `addr` or `addr/bits`; `None` for anything else.
    pub(crate) fn parse(text: &str) -> Option<Block> {
        let text = text.trim();
        let (addr, bits) = match text.split_once('/') {
            Some((addr, bits)) => (addr, Some(bits.parse::<u8>().ok()?)),
            None => (text, None),
        };
        let base: IpAddr = addr.parse().ok()?;
        let width = if base.is_ipv4() { 32 } else { 128 };
        let bits = bits.unwrap_or(width);
        if bits > width {
            return None;
        }
        // `::ffff:a.b.c.d/n` as the IPv4 block it is: peers are compared
        // as IPv4 (`to_canonical`), so as written it would match none.
        match base.to_canonical() {
            IpAddr::V4(v4) if base.is_ipv6() && bits >= 96 => Some(Block {
                base: IpAddr::V4(v4),
                bits: bits - 96,
            }),
            _ => Some(Block { base, bits }),
        }
    }

    fn contains(&self, addr: IpAddr) -> bool {
        let (base, addr, width) = match (self.base, addr.to_canonical()) {
            (IpAddr::V4(base), IpAddr::V4(addr)) => {
                (u128::from(base.to_bits()), u128::from(addr.to_bits()), 32)
            }
            (IpAddr::V6(base), IpAddr::V6(addr)) => (base.to_bits(), addr.to_bits(), 128),
            _ => return false,
        };
        let shift = width - u32::from(self.bits);
        shift >= width || base >> shift == addr >> shift
    }
}

/// The proxies whose forwarded addresses are believed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Clients {
    trusted: Vec<Block>,
}

impl Clients {
    pub(crate) fn new(trusted: &[Block]) -> Clients {
        Clients {
            trusted: trusted.to_vec(),
        }
    }

    /// Who sent a request: `None` when there is no token and the peer's
    /// address is unknown (a router mounted without `ConnectInfo`).
    pub(crate) fn of(
        &self,
        identity: Option<&Identity>,
        peer: Option<SocketAddr>,
        headers: &HeaderMap,
    ) -> Option<Client> {
        if let Some(identity) = identity {
            return Some(Client::Subject(identity.subject().into()));
        }
        let address = self.address(peer?.ip(), headers);
        Some(Client::Address(per_host(address)))
    }

    fn trusts(&self, addr: IpAddr) -> bool {
        self.trusted.iter().any(|block| block.contains(addr))
    }

    /// The client's address: the peer's, unless the peer is a trusted
    /// proxy; then the forwarded chain is read from the right, past every
    /// trusted proxy, to the first address that is not one (an entry that
    /// is no address, such as `unknown`, stops the walk at the proxy that
    /// wrote it). With both `Forwarded` and `X-Forwarded-For`, the proxy
    /// may have written one only and passed on the other from the client:
    /// unless both name the same client, the client is the proxy.
    fn address(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.trusts(peer) {
            return peer;
        }
        let walk = |chain: Vec<Option<IpAddr>>| {
            let mut client = peer;
            for hop in chain.into_iter().rev() {
                let Some(hop) = hop else { break };
                client = hop.to_canonical();
                if !self.trusts(client) {
                    break;
                }
            }
            client
        };
        let (forwarded, x_forwarded_for) = forwarded_chains(headers);
        match (forwarded.is_empty(), x_forwarded_for.is_empty()) {
            (true, true) => peer,
            (false, true) => walk(forwarded),
            (true, false) => walk(x_forwarded_for),
            (false, false) => {
                let (one, other) = (walk(forwarded), walk(x_forwarded_for));
                if one == other { one } else { peer }
            }
        }
    }
}

/// The addresses a request was forwarded for, nearest the client first:
/// the `for=` of each `Forwarded` element (RFC 7239), and the entries of
/// `X-Forwarded-For`. `None` for an entry that is no address.
fn forwarded_chains(headers: &HeaderMap) -> (Vec<Option<IpAddr>>, Vec<Option<IpAddr>>) {
    let lines = |name: &str| {
        headers
            .get_all(name)
            .iter()
            .flat_map(|value| value.to_str().unwrap_or_default().split(','))
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .collect::<Vec<_>>()
    };
    let forwarded = lines("forwarded")
        .into_iter()
        .map(|element| {
            element.split(';').find_map(|pair| {
                let (key, value) = pair.split_once('=')?;
                key.trim()
                    .eq_ignore_ascii_case("for")
                    .then(|| node_address(value.trim().trim_matches('"')))
            })?
        })
        .collect();
    let x_forwarded_for = lines("x-forwarded-for")
        .into_iter()
        .map(node_address)
        .collect();
    (forwarded, x_forwarded_for)
}

/// `1.2.3.4`, `1.2.3.4:80`, `2001:db8::1`, `[2001:db8::1]:80` → the address;
/// a port may be obfuscated (`1.2.3.4:_hidden`, RFC 7239).
fn node_address(node: &str) -> Option<IpAddr> {
    if let Ok(addr) = node.parse::<IpAddr>() {
        return Some(addr);
    }
    if let Some(rest) = node.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    let (addr, port) = node.rsplit_once(':')?;
    if port.parse::<u16>().is_err() && !port.starts_with('_') {
        return None;
    }
    addr.parse().ok()
}

/// An IPv6 address cut to its /64 (one host can use every address of
/// its block); an IPv4 one as it is.
fn per_host(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V4(_) => addr,
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & !u128::from(u64::MAX))),
    }
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderName, HeaderValue};

    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::try_from(*name).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn blocks_parse_and_match() {
        let block = Block::parse("10.0.0.0/8").unwrap();
        assert!(block.contains(ip("10.200.3.4")));
        assert!(!block.contains(ip("11.0.0.1")));
        assert!(block.contains(ip("::ffff:10.1.2.3")), "IPv4-mapped");
        assert!(Block::parse("127.0.0.1").unwrap().contains(ip("127.0.0.1")));
        assert!(!Block::parse("127.0.0.1").unwrap().contains(ip("127.0.0.2")));
        assert!(Block::parse("0.0.0.0/0").unwrap().contains(ip("8.8.8.8")));
        assert!(Block::parse("fd00::/8").unwrap().contains(ip("fd12::1")));
        assert!(!Block::parse("fd00::/8").unwrap().contains(ip("10.0.0.1")));
        for bad in ["", "10.0.0.0/33", "::/129", "localhost", "10.0.0.0/x"] {
            assert_eq!(Block::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_block_written_as_ipv4_mapped_matches_the_ipv4_peers_it_names() {
        // A dual-stack listener shows an IPv4 peer as `::ffff:a.b.c.d`,
        // and so may an operator's configuration; peers are compared as
        // IPv4.
        let one = Block::parse("::ffff:127.0.0.1").unwrap();
        assert!(one.contains(ip("127.0.0.1")));
        assert!(one.contains(ip("::ffff:127.0.0.1")));
        assert!(!one.contains(ip("127.0.0.2")));
        let block = Block::parse("::ffff:10.0.0.0/104").unwrap();
        assert!(block.contains(ip("10.200.3.4")));
        assert!(!block.contains(ip("11.0.0.1")));
        assert!(!Block::parse("::/64").unwrap().contains(ip("10.0.0.1")));
    }

    #[test]
    fn forwarded_addresses_count_only_from_trusted_proxies() {
        let clients = Clients::new(&[Block::parse("10.0.0.0/8").unwrap()]);
        let from = |peer: &str, pairs: &[(&str, &str)]| clients.address(ip(peer), &headers(pairs));
        // An untrusted peer's headers are ignored.
        assert_eq!(
            from("203.0.113.9", &[("x-forwarded-for", "198.51.100.1")]),
            ip("203.0.113.9")
        );
        // A trusted proxy's are read from the right, past trusted hops;
        // what the client itself wrote on the left is not believed.
        assert_eq!(
            from(
                "10.0.0.2",
                &[("x-forwarded-for", "6.6.6.6, 198.51.100.1, 10.0.0.7")]
            ),
            ip("198.51.100.1")
        );
        assert_eq!(
            from(
                "10.0.0.2",
                &[(
                    "forwarded",
                    "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\";proto=https"
                )]
            ),
            ip("2001:db8:cafe::17")
        );
        assert_eq!(
            from(
                "10.0.0.2",
                &[("forwarded", "for=unknown"), ("x-forwarded-for", "1.1.1.1")]
            ),
            ip("10.0.0.2"),
            "the two disagree (`unknown` stops at the proxy): the proxy"
        );
        assert_eq!(from("10.0.0.2", &[]), ip("10.0.0.2"));
        assert_eq!(
            from("10.0.0.2", &[("x-forwarded-for", "192.0.2.1:5555")]),
            ip("192.0.2.1")
        );
    }

    #[test]
    fn a_header_the_proxy_did_not_write_names_no_client() {
        // nginx as configured most often writes X-Forwarded-For and passes
        // on a `Forwarded` the client wrote itself: were that believed, a
        // client would be anyone it claims, each new session another one.
        let clients = Clients::new(&[Block::parse("127.0.0.1").unwrap()]);
        let from = |pairs: &[(&str, &str)]| clients.address(ip("127.0.0.1"), &headers(pairs));
        for claim in ["192.0.2.1", "192.0.2.2"] {
            assert_ne!(
                from(&[
                    ("forwarded", &format!("for={claim}")),
                    ("x-forwarded-for", "198.51.100.7"),
                ]),
                ip(claim),
                "the client's own claim"
            );
        }
        // The other way round: a proxy that writes `Forwarded` only.
        assert_ne!(
            from(&[
                ("x-forwarded-for", "192.0.2.1"),
                ("forwarded", "for=198.51.100.7"),
            ]),
            ip("192.0.2.1")
        );
        // A proxy that writes both, alike: believed.
        assert_eq!(
            from(&[
                ("x-forwarded-for", "198.51.100.7"),
                ("forwarded", "for=198.51.100.7"),
            ]),
            ip("198.51.100.7")
        );
    }

    #[test]
    fn an_obfuscated_port_leaves_the_address() {
        // RFC 7239 6.3: a proxy may hide the port (`_` and letters), not
        // the address.
        let clients = Clients::new(&[Block::parse("10.0.0.0/8").unwrap()]);
        let from = |value: &str| clients.address(ip("10.0.0.2"), &headers(&[("forwarded", value)]));
        assert_eq!(from("for=\"192.0.2.43:_abc\""), ip("192.0.2.43"));
        assert_eq!(from("for=\"[2001:db8::1]:_x-1\""), ip("2001:db8::1"));
        assert_eq!(from("for=\"192.0.2.43:x\""), ip("10.0.0.2"), "no port");
        assert_eq!(from("for=_hidden"), ip("10.0.0.2"), "an obfuscated node");
    }

    #[test]
    fn a_client_is_its_subject_or_its_host() {
        let clients = Clients::new(&[]);
        let peer = |text: &str| Some(SocketAddr::new(ip(text), 40000));
        assert_eq!(clients.of(None, None, &HeaderMap::new()), None);
        assert_eq!(
            clients.of(None, peer("2001:db8::1"), &HeaderMap::new()),
            clients.of(None, peer("2001:db8::ffff:1"), &HeaderMap::new()),
            "one /64, one client"
        );
        assert_ne!(
            clients.of(None, peer("2001:db8:0:1::1"), &HeaderMap::new()),
            clients.of(None, peer("2001:db8::1"), &HeaderMap::new())
        );
        let who = Identity::new("alice");
        assert_eq!(
            clients.of(Some(&who), peer("127.0.0.1"), &HeaderMap::new()),
            Some(Client::Subject("alice".into()))
        );
    }
}
