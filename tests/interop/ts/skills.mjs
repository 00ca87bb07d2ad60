// The TypeScript SDK 2.4 client's Skills extension (SEP-2640,
// @modelcontextprotocol/client/ext/skills) against the weather example over
// Streamable HTTP, in both eras: it lists the skills, gets one, and reads
// its files, verifying each against the entry's size and digest and the
// SKILL.md frontmatter (parsed by the client's own YAML reader) against the
// entry's. Usage: node skills.mjs URL (tests/skills.rs starts the server).

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";

import { equal, expect, steps } from "./checks.mjs";

const url = new URL(process.argv[2]);
const { step, finish } = steps("typescript-skills");
const SKILL = "skill://weather/trip-briefing/SKILL.md";
const REFERENCE = "references/briefing-template.md";

const eras = [
  ["2025-11-25", {}],
  ["2026-07-28", { versionNegotiation: { mode: { pin: "2026-07-28" } } }],
];
for (const [era, options] of eras) {
  const client = new Client({ name: "skills-check", version: "1.0.0" }, options);
  await step(`${era}: connect; the server declares the extension`, async () => {
    await client.connect(new StreamableHTTPClientTransport(url));
    expect(new SkillsClient(client).supported, "the skills extension is not declared");
  });
  const skills = new SkillsClient(client);
  let entry;
  await step(`${era}: skills/list: the trip-briefing skill, valid`, async () => {
    const listing = await skills.list();
    equal(listing.invalid, [], "invalid entries");
    equal(listing.skills.map((skill) => skill.uri), [SKILL], "skills");
    entry = listing.skills[0];
    equal(entry.frontmatter.name, "trip-briefing", "name");
    if (era === "2026-07-28") equal([listing.ttlMs, listing.cacheScope], [300000, "public"], "cache hint");
  });
  await step(`${era}: skills/get: the same entry`, async () => {
    const got = await skills.get(SKILL);
    equal(got.skill, entry, "entry");
  });
  await step(`${era}: read SKILL.md: size, digest and frontmatter verified`, async () => {
    const file = await skills.read(entry);
    expect(file.verified, "SKILL.md was not verified");
    equal(file.frontmatter, entry.frontmatter, "frontmatter");
    expect(file.body.includes("get_forecast"), "the body does not mention get_forecast");
  });
  await step(`${era}: read ${REFERENCE}: size and digest verified`, async () => {
    const file = await skills.read(entry, REFERENCE);
    expect(file.verified, `${REFERENCE} was not verified`);
    expect(file.text.startsWith("# Briefing template"), "unexpected text");
  });
  await client.close();
}
finish();
