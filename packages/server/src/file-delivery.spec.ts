import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "@switchyard/snapshot";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  routeConfigurationSpec,
  socketListenerSpec,
} from "@switchyard/snapshot/fixtures";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FailedFile, FileDelivery } from "./file-delivery.js";

/** Three EDS clusters, routed to from one listener. */
const config = (names: readonly string[]) => {
  const compiled = compile(
    configSpec({
      clusters: names.map((name) => clusterSpec(name, [endpointSpec("127.0.0.1", 50051)])),
      routeConfigurations: [routeConfigurationSpec("routes", names[0] ?? "")],
      listeners: [socketListenerSpec("ingress", 10000, "routes")],
    }),
  );
  expect(compiled.issues).toEqual([]);
  return compiled;
};

describe("file delivery to a real folder", () => {
  let folder: string;
  let failed: Array<FailedFile & { version: number }>;
  let delivery: FileDelivery;
  const versionOf = (file: string) =>
    /versionInfo: "?(\d+)"?/.exec(readFileSync(join(folder, "default", file), "utf8"))?.[1];

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), "switchyard-delivery-"));
    failed = [];
    delivery = new FileDelivery(
      { dir: folder, format: "yaml" },
      { onError: (failure, version) => failed.push({ ...failure, version }) },
    );
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it("writes a cluster with a 250-character name, and every later version", async () => {
    const long = `svc-${"x".repeat(246)}`;
    await delivery.deliver(config(["blue", long]), 1);
    await delivery.deliver(config(["blue", long, "green"]), 2);

    expect(failed).toEqual([]);
    expect(versionOf("cds.yaml")).toBe("2");
    expect(versionOf("eds/green.yaml")).toBe("2");
    // The cluster reads its endpoints from the file written under the shortened name.
    const cds = readFileSync(join(folder, "default", "cds.yaml"), "utf8");
    const path = /path: (\S*svc-x+\+[0-9a-f]{32}\.yaml)/.exec(cds)?.[1];
    expect(path).toBeDefined();
    expect(existsSync(path ?? "")).toBe(true);
  });

  it("a file that cannot be written is reported by name, and the others are written, in this version and the next", async () => {
    // A folder (with something in it) where green's assignment belongs: renaming onto it fails.
    mkdirSync(join(folder, "default", "eds", "green.yaml"), { recursive: true });
    writeFileSync(join(folder, "default", "eds", "green.yaml", "keep"), "");

    await delivery.deliver(config(["blue", "green", "red"]), 1);
    await delivery.deliver(config(["blue", "green", "red", "yellow"]), 2);

    expect(failed.map(({ file, version }) => [file, version])).toEqual([
      [join(folder, "default", "eds", "green.yaml"), 1],
      [join(folder, "default", "eds", "green.yaml"), 2],
    ]);
    for (const file of ["eds/blue.yaml", "eds/red.yaml", "eds/yellow.yaml", "cds.yaml", "lds.yaml"])
      expect(versionOf(file)).toBe("2");
    expect(versionOf("rds/routes.yaml")).toBe("2");

    // Once the obstacle is gone, the next version writes it.
    rmSync(join(folder, "default", "eds", "green.yaml"), { recursive: true });
    await delivery.deliver(config(["blue", "green", "red", "yellow"]), 3);
    expect(failed).toHaveLength(2);
    expect(versionOf("eds/green.yaml")).toBe("3");
  });
});
