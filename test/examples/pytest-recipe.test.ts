/**
 * The pytest fixture of docs/testing.md, run as written (its conftest.py and test taken from the
 * page; `npx mediagen` replaced by this repository's bin), when python3 with pytest is installed:
 * the documented recipe starts serve, reads its JSON line, makes a key, and a test asserts through
 * the journal that a start refused 503 was sent once.
 */
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { BIN, ROOT } from "../http/serve-child.js";

const exec = promisify(execFile);

function hasPytest(): boolean {
  try {
    execFileSync("python3", ["-c", "import pytest"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The python blocks of the page's pytest section: the conftest, then the test. */
function recipe(): { conftest: string; test: string } {
  const page = fs.readFileSync(path.join(ROOT, "docs", "testing.md"), "utf8");
  const section = page.slice(page.indexOf("## A pytest fixture"), page.indexOf("## CI recipes"));
  const blocks = [...section.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks).toHaveLength(2);
  return { conftest: blocks[0]!, test: blocks[1]! };
}

describe.skipIf(!hasPytest())("docs/testing.md's pytest fixture", () => {
  it("starts serve from its JSON line, and its example test passes", async () => {
    const { conftest, test } = recipe();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-pytest-"));
    try {
      expect(conftest).toContain('["npx", "mediagen", "serve"');
      fs.writeFileSync(
        path.join(dir, "conftest.py"),
        conftest.replace('["npx", "mediagen", "serve"', `[${JSON.stringify(process.execPath)}, ${JSON.stringify(BIN)}, "serve"`),
      );
      // The page's test calls "my_app": here, an app that starts an image and raises on an error status.
      const app = `import json, pytest, urllib.request
class my_app:
    @staticmethod
    def start_image(base_url, key, prompt):
        req = urllib.request.Request(base_url + "/asset/start", method="POST",
            data=json.dumps({"type": "image", "model": "imgA-4-fast", "prompt": prompt}).encode(),
            headers={"authorization": "Bearer " + key, "content-type": "application/json"})
        return json.loads(urllib.request.urlopen(req).read())
`;
      fs.writeFileSync(path.join(dir, "test_app.py"), `${app}\n${test}`);
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
      for (const k of Object.keys(env)) if (k.startsWith("MEDIAGEN_")) delete env[k];
      const r = await exec("python3", ["-m", "pytest", "-q", "-p", "no:cacheprovider", dir], { cwd: dir, env, timeout: 90_000 }).catch(
        (e: { stdout: string; stderr: string }) => e,
      );
      expect(`${r.stdout}${r.stderr}`).toMatch(/1 passed/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
