/**
 * Issue 27: the local-instance page's data: deliveries with their signature check, and the marked
 * place for faults and snapshots (issue 22), shown only when the instance offers a list of them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHome } from "../cli/helpers.js";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { localData } from "../../src/ui/local-data.js";
import { localPage } from "../../src/ui/local-page.js";

describe("the local instance page", () => {
  let instance: LocalInstance;

  beforeAll(() => {
    instance = openLocalInstance({ home: newHome(), worker: "none" });
    instance.defaultKey();
    const space = instance.listSpaces()[0]!;
    instance.webhooks.enqueue(space.id, "http://127.0.0.1:9/hook", { task: "asset_generation", asset_id: "<img src=x>", status: "completed" } as never);
  });
  afterAll(() => instance?.close());

  it("shows each delivery's payload as text and whether its signature checks out", () => {
    let page = localPage(localData(instance), [], "tok").text;
    expect(page).toContain("&lt;img src=x&gt;");
    expect(page).not.toContain("<img src=x>");
    expect(page).toContain('<span class="status status-unsigned">unsigned</span>');
    instance.setSetting("webhook_secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    const data = localData(instance);
    expect(data.deliveries.map((d) => d.signature)).toEqual(["valid"]);
    page = localPage(data, [], "tok").text;
    expect(page).toContain('<span class="status status-valid">valid</span>');
    expect(page).toContain('name="token" value="tok"');
    instance.setSetting("webhook_secret", null);
  });

  it("shows the instance's fault rules (escaped), its snapshots and a moved clock", async () => {
    const plain = localPage(localData(instance), [], "tok").text;
    expect(plain).toContain("No fault rules (mediagen local faults add).");
    expect(plain).toContain("No snapshots (mediagen local snapshot save &lt;name&gt;).");
    expect(plain).not.toContain("Instance clock:");
    const [rule] = instance.faults.add({ op: "assetStatus", action: "error", status: 503, message: "<b>down</b>", times: 2 }, "test");
    await instance.saveSnapshot("before-ui");
    instance.advanceClock("1h");
    try {
      const page = localPage(localData(instance), [], "tok").text;
      expect(page).toContain('<section id="faults"><h2>Faults</h2>');
      expect(page).toContain(rule!.id);
      expect(page).toContain("&lt;b&gt;down&lt;/b&gt;");
      expect(page).not.toContain("<b>down</b>");
      expect(page).toMatch(/<td>before-ui<\/td>/);
      expect(page).toContain("moved 3600 s from the machine");
    } finally {
      instance.faults.clear();
      instance.deleteSnapshot("before-ui");
      instance.resetClock();
    }
  });
});
