/**
 * The generator of Envoy resources (envoy-arbitrary.ts) makes only what Envoy's declared rules
 * allow: every case of each resource type decodes with the registry (`fromJson`) and passes the
 * codebase's own check of Envoy's validate.rules (`checkRules`), so the property over generated
 * resources (src/envoy-generated.spec.ts) cannot drift into testing invalid input.
 */
import { fromJson } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkRules } from "../src/validate/envoy-rules.js";
import { envoyArbitrary } from "./envoy-arbitrary.js";
import { CATEGORIES } from "./envoy-extensions.js";

const RESOURCE_TYPES = [
  "envoy.config.listener.v3.Listener",
  "envoy.config.cluster.v3.Cluster",
  "envoy.config.route.v3.RouteConfiguration",
  "envoy.config.endpoint.v3.ClusterLoadAssignment",
  "envoy.extensions.transport_sockets.tls.v3.Secret",
  "envoy.service.runtime.v3.Runtime",
];

describe("the Envoy resource generator", () => {
  for (const typeName of RESOURCE_TYPES) {
    it(`makes ${typeName.slice(typeName.lastIndexOf(".") + 1)}s that decode and pass checkRules`, () => {
      const desc = registry.getMessage(typeName);
      if (!desc) throw new Error(`no ${typeName}`);
      fc.assert(
        fc.property(envoyArbitrary(typeName), (json) => {
          const message = fromJson(desc, json as never, { registry });
          expect(checkRules(desc, message)).toEqual([]);
        }),
        { seed: 7, numRuns: 150 },
      );
    });
  }

  it("names only extension types the registry has, in every category", () => {
    const missing = Object.entries(CATEGORIES).flatMap(([category, types]) =>
      types
        .filter(([name]) => registry.getMessage(name) === undefined)
        .map(([name]) => `${category}: ${name}`),
    );
    expect(missing).toEqual([]);
  });
});
