//! The Lua scripts of [`RedisSessions`](super::RedisSessions): each change
//! of a session is one script, so that it is atomic on the one multiplexed
//! connection (where `WATCH`/`MULTI` would not be) and costs one round
//! trip. Every script reads the time with Redis's `TIME` (one clock for
//! the whole fleet: an instance's skewed clock cannot end a session
//! early), and builds the keys of the sessions it touches from the prefix,
//! its first argument: one Redis server, not a Cluster.

/// What every script starts with: the prefix, the clock, the keys, and
/// ending a session. `ARGV[1]` is always the prefix.
const PRELUDE: &str = r"
local P = ARGV[1]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function skey(s) return P .. ':session:' .. s end
local function busy(s, now)
  local b = redis.call('ZSCORE', P .. ':sessions:busy', s)
  return b and tonumber(b) > now
end
local function end_session(s)
  local h = skey(s)
  local f = redis.call('HMGET', h, 'cl', 'hold')
  local existed = redis.call('EXISTS', h)
  for _, uri in ipairs(redis.call('SMEMBERS', h .. ':subs')) do
    redis.call('SREM', P .. ':uri:' .. uri, s)
  end
  for _, name in ipairs(redis.call('SMEMBERS', h .. ':streams')) do
    redis.call('DEL', h .. ':ev:' .. name)
  end
  redis.call('DEL', h, h .. ':subs', h .. ':streams')
  redis.call('ZREM', P .. ':sessions:idle', s)
  redis.call('ZREM', P .. ':sessions:busy', s)
  if f[1] then redis.call('ZREM', P .. ':sessions:client:' .. f[1], s) end
  if f[2] then redis.call('PUBLISH', P .. ':instance:' .. f[2], 'X ' .. s) end
  return existed
end
local function keep(s, ttl)
  local h = skey(s)
  redis.call('PEXPIRE', h, ttl)
  redis.call('PEXPIRE', h .. ':subs', ttl)
  redis.call('PEXPIRE', h .. ':streams', ttl)
  redis.call('PEXPIRE', h .. ':ev:0', ttl)
end
local function touch(s, cl, now, ttl)
  redis.call('HSET', skey(s), 'at', now)
  redis.call('ZADD', P .. ':sessions:idle', now, s)
  if cl then
    local c = P .. ':sessions:client:' .. cl
    redis.call('ZADD', c, now, s)
    redis.call('PEXPIRE', c, ttl)
  end
end
local function append(s, name, line, maxlen)
  local h = skey(s)
  local f = redis.call('HMGET', h, 'hold', 'ttl')
  if not f[2] then return false end
  local key = h .. ':ev:' .. name
  local id = redis.call('XADD', key, 'MAXLEN', '~', maxlen, '*', 'm', line)
  redis.call('SADD', h .. ':streams', name)
  local left = redis.call('PTTL', h)
  if left > 0 then
    redis.call('PEXPIRE', key, left)
    redis.call('PEXPIRE', h .. ':streams', left)
  end
  if f[1] then
    redis.call('PUBLISH', P .. ':instance:' .. f[1], 'E ' .. s .. ' ' .. name .. ' ' .. id .. ' ' .. line)
  end
  return id
end
";

/// Keeps a new session, first making room: at the client's bound, its
/// idlest session not busy ends; at the server's, the idlest of all not
/// busy (of the first 1024 looked at; an entry whose session expired is
/// dropped, and counts as room). None found: `{'full', 'client'|'server'}`;
/// else `{'ok', ended ids...}`.
///
/// ARGV: prefix, id, ttl_ms, max, per_client, client key or '', grain_ms
/// (see `LOAD`), number of fields, the fields' names and values, then the
/// subscribed URIs.
const CREATE: &str = r"
local s = ARGV[2]
local ttl = tonumber(ARGV[3])
local max = tonumber(ARGV[4])
local per = tonumber(ARGV[5])
local cl = ARGV[6]
if cl == '' then cl = false end
local grain = ARGV[7]
local nf = tonumber(ARGV[8])
local now = now_ms()
local ended = {}
local function make_room(z)
  for _, m in ipairs(redis.call('ZRANGE', z, 0, 1023)) do
    if m ~= s then
      if redis.call('EXISTS', skey(m)) == 0 then
        redis.call('ZREM', z, m)
        redis.call('ZREM', P .. ':sessions:idle', m)
        redis.call('ZREM', P .. ':sessions:busy', m)
        return true
      elseif not busy(m, now) then
        end_session(m)
        table.insert(ended, m)
        return true
      end
    end
  end
  return false
end
local function count(z)
  local n = redis.call('ZCARD', z)
  if redis.call('ZSCORE', z, s) then n = n - 1 end
  return n
end
if cl then
  local z = P .. ':sessions:client:' .. cl
  while count(z) >= per do
    if not make_room(z) then return {'full', 'client'} end
  end
end
while count(P .. ':sessions:idle') >= max do
  if not make_room(P .. ':sessions:idle') then return {'full', 'server'} end
end
local h = skey(s)
redis.call('DEL', h, h .. ':subs')
local fields = {'rev', 1, 'ttl', ttl, 'g', grain}
for i = 9, 8 + 2 * nf do table.insert(fields, ARGV[i]) end
redis.call('HSET', h, unpack(fields))
for i = 9 + 2 * nf, #ARGV do
  redis.call('SADD', h .. ':subs', ARGV[i])
  redis.call('SADD', P .. ':uri:' .. ARGV[i], s)
end
keep(s, ttl)
touch(s, cl, now, ttl)
local out = {'ok'}
for _, m in ipairs(ended) do table.insert(out, m) end
return out
";

/// The hot path: a session's existence, its expiry and idle scores
/// refreshed, and its record unless the caller's copy is current. Nil if
/// it is gone; `{rev, holder or ''}` when `rev` is the caller's; else
/// `{rev, holder or '', HGETALL, SMEMBERS subs}`.
///
/// The refresh has a grain (`g`, ms, set at creation): a use less than
/// `g` after the last one recorded (`at`) changes nothing, so that a busy
/// session costs Redis two reads per request, not nine commands. The idle
/// order and the expiry are then that much behind at most (the reaper
/// allows for it: see `REAP`). A record without `g` is refreshed always.
///
/// ARGV: prefix, id, the caller's rev or ''.
const LOAD: &str = r"
local s = ARGV[2]
local h = skey(s)
local f = redis.call('HMGET', h, 'rev', 'cl', 'hold', 'ttl', 'at', 'g')
if not f[1] then return false end
local now = now_ms()
if not f[5] or now - tonumber(f[5]) >= tonumber(f[6] or 0) then
  local ttl = tonumber(f[4])
  keep(s, ttl)
  touch(s, f[2], now, ttl)
end
local hold = f[3] or ''
if f[1] == ARGV[3] then return {f[1], hold} end
return {f[1], hold, redis.call('HGETALL', h), redis.call('SMEMBERS', h .. ':subs')}
";

/// One change of a session's mutable state, its rev bumped, and its
/// holder told (`C id rev`). Nil if the session is gone; else the new rev.
///
/// ARGV: prefix, id, kind (`lvl`, `sub`, `unsub`, `roots`), argument.
const CHANGE: &str = r"
local s = ARGV[2]
local h = skey(s)
if redis.call('EXISTS', h) == 0 then return false end
local kind = ARGV[3]
local arg = ARGV[4]
if kind == 'lvl' then
  redis.call('HSET', h, 'lvl', arg)
elseif kind == 'sub' then
  redis.call('SADD', h .. ':subs', arg)
  redis.call('SADD', P .. ':uri:' .. arg, s)
  redis.call('PEXPIRE', h .. ':subs', redis.call('PTTL', h))
elseif kind == 'unsub' then
  redis.call('SREM', h .. ':subs', arg)
  redis.call('SREM', P .. ':uri:' .. arg, s)
elseif kind == 'roots' then
  redis.call('HINCRBY', h, 'roots', 1)
else
  return redis.error_reply('unknown session change ' .. kind)
end
local rev = redis.call('HINCRBY', h, 'rev', 1)
local hold = redis.call('HGET', h, 'hold')
if hold then redis.call('PUBLISH', P .. ':instance:' .. hold, 'C ' .. s .. ' ' .. rev) end
return rev
";

/// Ends a session: 1 if there was one, 0 if not. ARGV: prefix, id.
const END: &str = r"
return end_session(ARGV[2])
";

/// Marks sessions busy until now + the lease, and as used now (their
/// expiry refreshed too). Returns the ids of those that are gone.
///
/// ARGV: prefix, lease_ms, ids...
const BUSY: &str = r"
local now = now_ms()
local lease = tonumber(ARGV[2])
local gone = {}
for i = 3, #ARGV do
  local s = ARGV[i]
  local f = redis.call('HMGET', skey(s), 'cl', 'ttl')
  if f[2] then
    local ttl = tonumber(f[2])
    redis.call('ZADD', P .. ':sessions:busy', now + lease, s)
    keep(s, ttl)
    touch(s, f[1], now, ttl)
  else
    redis.call('ZREM', P .. ':sessions:busy', s)
    table.insert(gone, s)
  end
end
return gone
";

/// Ends the sessions idle for longer than the idle timeout and not busy
/// (at most 1000 a run), unless another instance reaped within the lock's
/// time; drops lapsed leases. Returns the ids ended. The caller adds the
/// grain of `LOAD` to the idle timeout: a session's recorded last use may
/// be that much older than its real one, and it must never end early.
///
/// ARGV: prefix, idle_ms (grain included), lock_ms, lock token.
const REAP: &str = r"
if not redis.call('SET', P .. ':sessions:reaper', ARGV[4], 'NX', 'PX', ARGV[3]) then
  return {}
end
local now = now_ms()
local before = string.format('(%d', now - tonumber(ARGV[2]))
local ended = {}
for _, s in ipairs(redis.call('ZRANGEBYSCORE', P .. ':sessions:idle', '-inf', before, 'LIMIT', 0, 1000)) do
  if not busy(s, now) then
    if end_session(s) == 1 then table.insert(ended, s) end
  end
end
redis.call('ZREMRANGEBYSCORE', P .. ':sessions:busy', '-inf', string.format('(%d', now))
return ended
";

/// Appends a line to one of a session's streams (trimmed to about
/// `maxlen`), and tells the holder of its GET stream (`E id stream entry
/// line`). Nil if the session is gone; else the entry's id.
///
/// ARGV: prefix, id, stream name, line, maxlen.
const APPEND: &str = r"
return append(ARGV[2], ARGV[3], ARGV[4], ARGV[5])
";

/// Appends a line to the GET stream of every session subscribed to a URI
/// (dropping from the index those that are gone). Returns how many.
///
/// ARGV: prefix, uri, line, maxlen.
const NOTIFY_URI: &str = r"
local idx = P .. ':uri:' .. ARGV[2]
local n = 0
for _, s in ipairs(redis.call('SMEMBERS', idx)) do
  if append(s, '0', ARGV[3], ARGV[4]) then
    n = n + 1
  else
    redis.call('SREM', idx, s)
  end
end
return n
";

/// Makes an instance the holder of a session's GET stream, telling the
/// previous holder, if another, that it lost it (`T id`). Nil if the
/// session is gone; else `{previous holder or '', delivered cursor or ''}`.
///
/// ARGV: prefix, id, instance.
const HOLD: &str = r"
local s = ARGV[2]
local h = skey(s)
if redis.call('EXISTS', h) == 0 then return false end
local f = redis.call('HMGET', h, 'hold', 'gd')
redis.call('HSET', h, 'hold', ARGV[3])
if f[1] and f[1] ~= ARGV[3] then
  redis.call('PUBLISH', P .. ':instance:' .. f[1], 'T ' .. s)
end
return {f[1] or '', f[2] or ''}
";

/// Lets go of a session's GET stream if this instance still holds it,
/// noting how far it was delivered. 1 if it held it, else 0.
///
/// ARGV: prefix, id, instance, delivered entry id or ''.
const RELEASE: &str = r"
local h = skey(ARGV[2])
if redis.call('HGET', h, 'hold') ~= ARGV[3] then return 0 end
redis.call('HDEL', h, 'hold')
if ARGV[4] ~= '' then redis.call('HSET', h, 'gd', ARGV[4]) end
return 1
";

/// Notes how far the GET streams an instance holds were delivered (for a
/// GET without `Last-Event-ID` after the instance is gone), where it still
/// holds them. Returns how many were noted.
///
/// ARGV: prefix, instance, then pairs of session id and entry id.
const DELIVERED: &str = r"
local n = 0
for i = 3, #ARGV - 1, 2 do
  local h = skey(ARGV[i])
  if redis.call('HGET', h, 'hold') == ARGV[2] then
    redis.call('HSET', h, 'gd', ARGV[i + 1])
    n = n + 1
  end
end
return n
";

/// Copies events of a POST stream into the session's stream of that name,
/// each as the entry `0-{seq}` (its number in the stream), skipping those
/// in already; the stream lives `ttl` (and goes with the session). Then
/// wakes each instance waiting for it (`R {"k":"wake","s":id,"st":name}`).
/// Nil if the session is gone; else the number of the last event in.
///
/// ARGV: prefix, id, stream name, maxlen, ttl_ms, waiting instances
/// (separated by spaces), then the events' numbers and lines.
const EXPORT: &str = r#"
local s = ARGV[2]
local h = skey(s)
if redis.call('EXISTS', h) == 0 then return false end
local key = h .. ':ev:' .. ARGV[3]
local last = 0
local top = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
if top[1] then last = tonumber(string.match(top[1][1], '-(%d+)$')) end
for i = 7, #ARGV, 2 do
  local seq = tonumber(ARGV[i])
  if seq > last then
    redis.call('XADD', key, 'MAXLEN', '~', ARGV[4], '0-' .. seq, 'm', ARGV[i + 1])
    last = seq
  end
end
if last > 0 then
  redis.call('SADD', h .. ':streams', ARGV[3])
  redis.call('PEXPIRE', key, ARGV[5])
  local left = redis.call('PTTL', h)
  if left > 0 then redis.call('PEXPIRE', h .. ':streams', left) end
end
local wake = 'R ' .. cjson.encode({k = 'wake', s = s, st = ARGV[3]})
for w in string.gmatch(ARGV[6], '%S+') do
  redis.call('PUBLISH', P .. ':instance:' .. w, wake)
end
return last
"#;

/// The scripts, each with the prelude.
pub(super) struct Scripts {
    pub(super) create: redis::Script,
    pub(super) load: redis::Script,
    pub(super) change: redis::Script,
    pub(super) end: redis::Script,
    pub(super) busy: redis::Script,
    pub(super) reap: redis::Script,
    pub(super) append: redis::Script,
    pub(super) notify_uri: redis::Script,
    pub(super) hold: redis::Script,
    pub(super) release: redis::Script,
    pub(super) delivered: redis::Script,
    pub(super) export: redis::Script,
}

impl Scripts {
    pub(super) fn new() -> Scripts {
        let script = |body: &str| redis::Script::new(&format!("{PRELUDE}{body}"));
        Scripts {
            create: script(CREATE),
            load: script(LOAD),
            change: script(CHANGE),
            end: script(END),
            busy: script(BUSY),
            reap: script(REAP),
            append: script(APPEND),
            notify_uri: script(NOTIFY_URI),
            hold: script(HOLD),
            release: script(RELEASE),
            delivered: script(DELIVERED),
            export: script(EXPORT),
        }
    }

    /// Every script, for loading them at start-up.
    pub(super) fn all(&self) -> [&redis::Script; 12] {
        [
            &self.create,
            &self.load,
            &self.change,
            &self.end,
            &self.busy,
            &self.reap,
            &self.append,
            &self.notify_uri,
            &self.hold,
            &self.release,
            &self.delivered,
            &self.export,
        ]
    }
}
