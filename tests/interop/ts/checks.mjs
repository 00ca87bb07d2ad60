// What the TypeScript checks share: steps reported one line each (`ok` or
// `FAIL` with the reason; a failed step does not stop the next one), and
// expectations about results.

export class CheckFailed extends Error {}

/** Steps of the suite `suite`; `finish()` prints the count and exits 1 if any failed. */
export function steps(suite) {
  let passed = 0;
  let failed = 0;
  return {
    async step(name, body) {
      const started = performance.now();
      try {
        await body();
        passed += 1;
        console.log(`ok   ${suite}: ${name} (${((performance.now() - started) / 1000).toFixed(2)}s)`);
      } catch (error) {
        failed += 1;
        const reason = error instanceof CheckFailed ? error.message : (error?.stack ?? String(error));
        console.log(`FAIL ${suite}: ${name}\n     ${reason.replaceAll("\n", "\n     ")}`);
      }
    },
    finish() {
      console.log(`${suite}: ${passed} passed, ${failed} failed`);
      process.exit(failed ? 1 : 0);
    },
  };
}

export function expect(condition, message) {
  if (!condition) throw new CheckFailed(message);
}

export function equal(actual, expected, what) {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new CheckFailed(`${what}: expected ${e}, got ${a}`);
}

/** The text of a result's single text block. */
export function textOf(result) {
  equal(result.content.map((block) => block.type), ["text"], "content block types");
  return result.content[0].text;
}

/** The structured content of a successful result, checked against its text block. */
export function structured(result) {
  expect(!result.isError, `the call failed: ${JSON.stringify(result.content)}`);
  expect(result.structuredContent !== undefined, "no structuredContent");
  equal(JSON.parse(textOf(result)), result.structuredContent, "the text block's JSON");
  return result.structuredContent;
}

/** The message of a result with `isError: true`. */
export function toolError(result) {
  expect(result.isError === true, `expected isError: true, got ${JSON.stringify(result)}`);
  expect(result.structuredContent === undefined, "an error result carries structuredContent");
  return textOf(result);
}
