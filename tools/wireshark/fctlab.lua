-- Wireshark / tshark dissector for fctlab's congestion-header shim (docs/pcap.md).
--
-- fctlab's captures (`[output.pcap]`, `fctlab emulate` with a capture) carry the explicit
-- protocols' congestion headers (RCP, XCP, JetMax, PIQI-RCP, pFabric, HPCC's telemetry, a
-- plug-in's words) in a shim: the first bytes of a data segment's payload, or, on packets
-- without such a payload (SYN, SYN-ACK, ACK), an Ethernet trailer after the IP packet. TCP
-- reads the same with or without this file; with it, the shim's fields get names:
--
--   tshark -X lua_script:tools/wireshark/fctlab.lua -r capture.pcapng -Y fctlab \
--          -T fields -e frame.number -e fctlab.rcp.rate
--
-- Wireshark: copy (or link) this file into the personal Lua plugins folder
-- (Help > About Wireshark > Folders > Personal Lua Plugins) and reload (Ctrl-Shift-L).
--
-- Shim layout (big-endian): magic 0xFC 0x1A, version 1, tag, length (u16, bytes, these six
-- included), three 32-bit words, and for HPCC (tags 10, 11) five telemetry records of two
-- words. The words are fctlab's wire encoding of each header (crates/fctlab-core/src/protocol/
-- <name>/header.rs).

local fctlab = Proto("fctlab", "fctlab congestion header")

local TAGS = {
  [1] = "RCP", [2] = "RCP echo", [3] = "XCP", [4] = "XCP echo", [5] = "JetMax",
  [6] = "JetMax echo", [7] = "PIQI-RCP", [8] = "PIQI-RCP echo", [9] = "pFabric",
  [10] = "HPCC", [11] = "HPCC echo",
}
local PLACES = { [0] = "TCP payload", [1] = "Ethernet trailer" }

local f = {
  version = ProtoField.uint8("fctlab.version", "Version"),
  tag = ProtoField.uint8("fctlab.tag", "Header", base.DEC, TAGS),
  length = ProtoField.uint16("fctlab.length", "Shim length", base.DEC),
  place = ProtoField.uint8("fctlab.placement", "Carried in", base.DEC, PLACES),
  echo = ProtoField.bool("fctlab.echo", "Echo (receiver to sender)"),
  rcp_rate = ProtoField.uint32("fctlab.rcp.rate", "RCP rate (kbit/s; 4294967295: no limit yet)"),
  rcp_rtt = ProtoField.uint32("fctlab.rcp.rtt", "RCP sender RTT (us)"),
  rcp_age = ProtoField.uint32("fctlab.rcp.age", "RCP bytes sent so far (KiB)"),
  xcp_cwnd = ProtoField.float("fctlab.xcp.cwnd", "XCP sender cwnd (bytes)"),
  xcp_rtt = ProtoField.uint32("fctlab.xcp.rtt", "XCP sender RTT (us)"),
  xcp_feedback = ProtoField.float("fctlab.xcp.feedback", "XCP feedback (bytes)"),
  jetmax_rt = ProtoField.uint16("fctlab.jetmax.rt", "JetMax bottleneck router RT"),
  jetmax_rs = ProtoField.uint16("fctlab.jetmax.rs", "JetMax offering router RS"),
  jetmax_rate = ProtoField.float("fctlab.jetmax.rate", "JetMax rate (bit/s)"),
  jetmax_ipi = ProtoField.float("fctlab.jetmax.ipi", "JetMax inter-packet interval (s)"),
  piqi_rate = ProtoField.float("fctlab.piqi.rate", "PIQI-RCP rate (bit/s)"),
  piqi_interval = ProtoField.uint32("fctlab.piqi.interval", "PIQI-RCP interval number"),
  piqi_id = ProtoField.uint32("fctlab.piqi.id", "PIQI-RCP router id"),
  pfabric_remaining = ProtoField.uint32("fctlab.pfabric.remaining", "pFabric remaining bytes (priority)"),
  hpcc_nhop = ProtoField.uint32("fctlab.hpcc.nhop", "HPCC ports that pushed a record"),
  hpcc_hop = ProtoField.bytes("fctlab.hpcc.hop", "HPCC record"),
  hpcc_ts = ProtoField.uint32("fctlab.hpcc.hop.ts", "ts (ns mod 2^24)"),
  hpcc_busy = ProtoField.uint32("fctlab.hpcc.hop.busy", "busy: txBytes/B (ns mod 2^24)"),
  hpcc_qdelay = ProtoField.uint64("fctlab.hpcc.hop.qdelay", "qdelay: qlen/B (ns)"),
  plugin_word = ProtoField.uint32("fctlab.plugin.word", "Plug-in word", base.HEX),
}
fctlab.fields = {}
for _, v in pairs(f) do table.insert(fctlab.fields, v) end

local function float_at(tvb, at)
  return tvb(at, 4):float()
end

-- HPCC's qdelay: an 11-bit mantissa and a 5-bit exponent, nanoseconds (hpcc/header.rs).
local function from_float16(x)
  local mantissa = x % 2048
  local exponent = math.floor(x / 2048)
  return UInt64(mantissa):lshift(exponent)
end

local function dissect_shim(tvb, pinfo, tree, place)
  if tvb:len() < 6 then return 0 end
  if tvb(0, 1):uint() ~= 0xFC or tvb(1, 1):uint() ~= 0x1A or tvb(2, 1):uint() ~= 1 then return 0 end
  local tag = tvb(3, 1):uint()
  local len = tvb(4, 2):uint()
  local want = (tag == 10 or tag == 11) and 58 or 18
  if len ~= want or tvb:len() < len then return 0 end
  local t = tree:add(fctlab, tvb(0, len))
  t:add(f.version, tvb(2, 1))
  t:add(f.tag, tvb(3, 1))
  t:add(f.length, tvb(4, 2))
  t:add(f.place, place)
  local echo = tag == 2 or tag == 4 or tag == 6 or tag == 8 or tag == 11 or tag >= 192
  t:add(f.echo, echo)
  local w = function(k) return tvb(6 + 4 * k, 4) end
  if tag == 1 then
    t:add(f.rcp_rate, w(0)); t:add(f.rcp_rtt, w(1)); t:add(f.rcp_age, w(2))
  elseif tag == 2 then
    t:add(f.rcp_rate, w(0))
  elseif tag == 3 then
    t:add(f.xcp_cwnd, w(0)); t:add(f.xcp_rtt, w(1)); t:add(f.xcp_feedback, w(2))
  elseif tag == 4 then
    t:add(f.xcp_feedback, w(0))
  elseif tag == 5 then
    t:add(f.jetmax_rt, tvb(6, 2)); t:add(f.jetmax_rs, tvb(8, 2))
    t:add(f.jetmax_rate, w(1)); t:add(f.jetmax_ipi, w(2))
  elseif tag == 6 then
    t:add(f.jetmax_rs, tvb(6, 2)); t:add(f.jetmax_rate, w(1))
  elseif tag == 7 or tag == 8 then
    t:add(f.piqi_rate, w(0)); t:add(f.piqi_interval, w(1)); t:add(f.piqi_id, w(2))
  elseif tag == 9 then
    t:add(f.pfabric_remaining, w(0))
  elseif tag == 10 or tag == 11 then
    local nhop = w(0):uint()
    t:add(f.hpcc_nhop, w(0))
    for k = 0, math.min(nhop, 5) - 1 do
      local at = 18 + 8 * k
      local w0 = tvb(at, 4):uint()
      local w1 = tvb(at + 4, 4):uint()
      local h = t:add(f.hpcc_hop, tvb(at, 8))
      h:set_text(string.format("HPCC record %d", k + 1))
      -- ts: bits 0-23 of word 0; busy: bits 24-31 of word 0 and 0-15 of word 1; qdelay: bits
      -- 16-31 of word 1.
      h:add(f.hpcc_ts, tvb(at, 4), w0 % 16777216)
      h:add(f.hpcc_busy, tvb(at, 8), math.floor(w0 / 16777216) + (w1 % 65536) * 256)
      h:add(f.hpcc_qdelay, tvb(at + 4, 2), from_float16(math.floor(w1 / 65536)))
    end
  else
    for k = 0, 2 do t:add(f.plugin_word, w(k)) end
  end
  local name = TAGS[tag] or string.format("plug-in %d", tag)
  pinfo.cols.info:append(" [fctlab " .. name .. "]")
  return len
end

-- A postdissector reads the shim from the frame itself: after the TCP header (a data
-- segment's payload) or after the IP packet (the Ethernet trailer). Not a heuristic dissector
-- on TCP: Wireshark does not hand a retransmitted segment's payload to subdissectors
-- (tcp.no_subdissector_on_error), and retransmissions carry the shim too.
function fctlab.dissector(tvb, pinfo, tree)
  local n = tvb:len()
  if n < 14 + 20 + 20 or tvb(12, 2):uint() ~= 0x0800 or tvb(23, 1):uint() ~= 6 then return end
  local ihl = (tvb(14, 1):uint() % 16) * 4
  local ip_len = tvb(16, 2):uint()
  local tcp_at = 14 + ihl
  if n < tcp_at + 20 then return end
  local payload_at = tcp_at + math.floor(tvb(tcp_at + 12, 1):uint() / 16) * 4
  local trailer_at = 14 + ip_len
  if payload_at < trailer_at and n >= payload_at + 6 then
    if dissect_shim(tvb(payload_at):tvb(), pinfo, tree, 0) > 0 then return end
  end
  if n >= trailer_at + 6 then
    dissect_shim(tvb(trailer_at):tvb(), pinfo, tree, 1)
  end
end

register_postdissector(fctlab)
