#!/usr/bin/env node
// js_random_bot: a 952 Arena bot in JavaScript that answers every decision with a uniformly
// random legal option. Written from protos/arena/v1/arena.proto and docs/protocol.md alone,
// to show that a bot needs nothing else (no Python, no SDK).
//
//   ARENA_ADDRESS=unix:///tmp/m/referee.sock ARENA_TOKEN=... node bot.js [--seed N]
//
// The random stream is reseeded at every GameStart from (seed, game number, seat), so the
// bot's play in a game depends only on those and on what it is asked.

"use strict";

const path = require("node:path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const BOT_NAME = "js_random_bot";
const BOT_VERSION = "1.0.0";
const PROTOCOL_VERSION = 1;
const PROTO_DIR = path.join(__dirname, "proto");
// After MatchEnd we half-close and wait this long for the referee to end the call.
const EXIT_GRACE_MS = 2000;
// How long to wait for the referee's socket to accept a connection before giving up.
const CONNECT_TIMEOUT_MS = 10000;

function log(line) {
  process.stderr.write(`${BOT_NAME}: ${line}\n`);
}

function die(line, code = 1) {
  log(line);
  process.exit(code);
}

// --- command line -----------------------------------------------------------------------

function parseSeed(argv) {
  let seed = 1;
  for (let i = 0; i < argv.length; i++) {
    let value;
    if (argv[i] === "--seed") {
      value = argv[++i];
    } else if (argv[i].startsWith("--seed=")) {
      value = argv[i].slice("--seed=".length);
    } else {
      die(`unknown argument ${JSON.stringify(argv[i])} (usage: node bot.js [--seed N])`, 2);
    }
    if (value === undefined || !/^-?\d+$/.test(value)) {
      die(`--seed needs an integer, got ${JSON.stringify(value)}`, 2);
    }
    seed = Number.parseInt(value, 10);
  }
  return seed;
}

// --- seeded randomness --------------------------------------------------------------------

// mulberry32: a small 32-bit PRNG; returns floats in [0, 1).
function mulberry32(state) {
  let a = state >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A 32-bit hash of several integers (murmur3-style mixing), used to seed one game.
function mixSeed(...values) {
  let h = 0x9e3779b9;
  for (const v of values) {
    let k = Number(BigInt.asUintN(32, BigInt(v)));
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function randInt(rng, n) {
  return Math.floor(rng() * n);
}

function choice(rng, items) {
  if (items.length === 0) throw new Error("no legal option to choose from");
  return items[randInt(rng, items.length)];
}

// k distinct items of `items`, uniformly at random (partial Fisher-Yates on a copy).
function sample(rng, items, k) {
  if (k > items.length) throw new Error(`cannot pick ${k} of ${items.length} cards`);
  const pool = items.slice();
  for (let i = 0; i < k; i++) {
    const j = i + randInt(rng, pool.length - i);
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, k);
}

// --- decisions ----------------------------------------------------------------------------

// The ActionReply for one DecisionRequest: a uniformly random legal option.
function answer(rng, req) {
  const r = req.observation.request;
  const reply = { request_id: req.request_id };
  switch (r.kind) {
    case "DECISION_KIND_PLAY":
      reply.play = { card: choice(rng, r.cards) };
      break;
    case "DECISION_KIND_TRUMP":
      reply.trump = { trump: choice(rng, r.trump_options) };
      break;
    case "DECISION_KIND_DISCARD":
      reply.discard = { cards: sample(rng, r.cards, r.discard_count) };
      break;
    case "DECISION_KIND_GIVE": {
      const total = r.give_legs.reduce((sum, leg) => sum + leg.count, 0);
      const cards = sample(rng, r.cards, total);
      const legs = [];
      let at = 0;
      for (const leg of r.give_legs) {
        legs.push({ cards: cards.slice(at, at + leg.count) });
        at += leg.count;
      }
      reply.give = { legs };
      break;
    }
    default:
      throw new Error(`unknown decision kind ${r.kind}`);
  }
  return reply;
}

// --- the stream ---------------------------------------------------------------------------

function main() {
  const seed = parseSeed(process.argv.slice(2));
  const address = process.env.ARENA_ADDRESS;
  const token = process.env.ARENA_TOKEN;
  if (!address) die("ARENA_ADDRESS is not set", 2);
  if (!token) die("ARENA_TOKEN is not set", 2);

  const definition = protoLoader.loadSync("arena/v1/arena.proto", {
    includeDirs: [PROTO_DIR],
    keepCase: true, // field names as in the .proto (request_id, not requestId)
    longs: String, // uint64 request_id as a decimal string, echoed back unchanged
    enums: String, // enum values as their names ("DECISION_KIND_PLAY", "TRUMP_H")
    defaults: true, // absent (zero-valued) fields read back as 0, "", []
    oneofs: true, // msg.message names the variant that is set
  });
  const arena = grpc.loadPackageDefinition(definition).arena.v1;
  let client;
  try {
    client = new arena.Referee(address, grpc.credentials.createInsecure());
  } catch (err) {
    die(`bad ARENA_ADDRESS ${JSON.stringify(address)}: ${err.message}`);
  }
  // Wait (boundedly) until the channel connects: the referee normally listens already, but
  // a bot started a few milliseconds early should wait instead of failing.
  client.waitForReady(Date.now() + CONNECT_TIMEOUT_MS, (err) => {
    if (err) die(`cannot connect to ${address}: ${err.message}`);
    play(client, seed, address, token);
  });
}

function play(client, seed, address, token) {
  const call = client.Play(new grpc.Metadata({ waitForReady: true }));

  let rng = mulberry32(mixSeed(seed, 0, 0));
  let welcomed = false;
  let finished = false; // MatchEnd received
  let game = null; // { number, seat, id }

  call.on("data", (msg) => {
    switch (msg.message) {
      case "welcome": {
        const w = msg.welcome;
        welcomed = true;
        const tc = w.time_control || { decision_ms: 0, bank_ms: 0 };
        log(
          `welcome: seat ${w.seat}, match ${w.match_id}, ${w.games_in_match} games, ` +
            `${tc.decision_ms} ms/decision + ${tc.bank_ms} ms bank, seed ${seed}`,
        );
        break;
      }
      case "game_start": {
        const g = msg.game_start;
        game = { number: g.game_number, seat: g.seat, id: g.game_id };
        rng = mulberry32(mixSeed(seed, g.game_number, g.seat));
        const rules = g.rules ? g.rules.name : "?";
        log(`game ${g.game_number}/${g.games_in_match} (${g.game_id}): ${rules}, seat ${g.seat}`);
        break;
      }
      case "decision_request": {
        const reply = answer(rng, msg.decision_request);
        call.write({ action_reply: reply });
        break;
      }
      case "fault": {
        const f = msg.fault;
        log(`fault ${f.kind} (${f.decision}, hand ${f.hand}): ${f.detail}`);
        break;
      }
      case "game_end": {
        const e = msg.game_end;
        const res = e.result || { scores: [], winners: [], hands_played: 0, reason: "" };
        const seat = game ? game.seat : "?";
        const number = game ? game.number : "?";
        log(
          `game ${number} (${e.game_id}) seat ${seat}: scores [${res.scores.join(", ")}], ` +
            `winners [${res.winners.join(", ")}], ${res.hands_played} hands, ${res.reason}` +
            (e.faults.length ? `, ${e.faults.length} fault(s)` : ""),
        );
        game = null;
        break;
      }
      case "match_end": {
        const m = msg.match_end;
        log(`match end: ${m.games_played} games, ${m.reason || "no reason given"}`);
        finished = true;
        call.end(); // half-close: we send nothing more
        // Exit once the referee ends the call, or after a grace period at the latest.
        setTimeout(() => process.exit(0), EXIT_GRACE_MS).unref();
        break;
      }
      default:
        // hand_end, and variants newer than this bot: nothing to do.
        break;
    }
  });

  call.on("error", (err) => {
    // After MatchEnd, or a referee that cancels an admitted bot's call: the match is over.
    if (finished) process.exit(0);
    if (err.code === grpc.status.CANCELLED && welcomed) process.exit(0);
    const code = grpc.status[err.code] || err.code;
    const when = welcomed ? "stream broke" : "could not join the match";
    die(`${when}: ${code}: ${err.details || err.message} (address ${address})`);
  });

  call.on("status", (status) => {
    // Only OK arrives here without an 'error' event: the referee closed the stream.
    if (status.code === grpc.status.OK) {
      if (!finished) log("the referee closed the stream");
      process.exit(0);
    }
  });

  // Send Hello first, immediately.
  call.write({
    hello: {
      token,
      bot_name: BOT_NAME,
      bot_version: BOT_VERSION,
      protocol_version: PROTOCOL_VERSION,
    },
  });
}

main();
