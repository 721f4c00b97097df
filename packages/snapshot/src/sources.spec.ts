import { describe, expect, it } from "vitest";
import { clusterSpec, configSpec, endpointSpec, grpcServiceSpec } from "./fixtures.js";
import {
  canonicalJson,
  diffManifests,
  draftRevision,
  EMPTY_MANIFEST,
  sourceManifest,
  sourceObjects,
  specFromSources,
} from "./sources.js";

describe("source objects", () => {
  it("serializes equal values identically whatever the order of their keys", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
  });

  it("gives the same content the same key on any replica, and changed content a new key", () => {
    const [a] = sourceObjects(
      configSpec({ clusters: [clusterSpec("c", [endpointSpec("10.0.0.1", 80)])] }),
    );
    const [b] = sourceObjects(
      configSpec({ clusters: [clusterSpec("c", [endpointSpec("10.0.0.1", 80)])] }),
    );
    const [c] = sourceObjects(
      configSpec({ clusters: [clusterSpec("c", [endpointSpec("10.0.0.2", 80)])] }),
    );
    expect(b?.key).toBe(a?.key);
    expect(c?.key).not.toBe(a?.key);
  });

  it("rebuilds the spec it was made from", () => {
    const spec = grpcServiceSpec("greeter", [endpointSpec("127.0.0.1", 50051)]);
    expect(specFromSources(sourceObjects(spec))).toEqual(spec);
  });

  it("keeps the key of a listener stored before filter chains had network filters or a default chain, and rebuilds it with neither", () => {
    const spec = grpcServiceSpec("greeter", [endpointSpec("127.0.0.1", 50051)]);
    const listener = spec.listeners[0];
    if (!listener) throw new Error("expected a listener");
    const { filterChains, ...rest } = listener;
    const stored = {
      ...rest,
      filterChains: filterChains.map(
        ({ networkFilters: _, networkOnly: __, isDefault: ___, ...chain }) => chain,
      ),
    };
    const [source] = sourceObjects(configSpec({ listeners: [listener] }));
    expect(source?.json).toBe(canonicalJson(stored));
    expect(specFromSources([{ kind: "listener", json: canonicalJson(stored) }]).listeners).toEqual([
      listener,
    ]);
    const tcp = { ...listener, filterChains: [{ ...filterChains[0], networkOnly: true }] };
    expect(sourceObjects(configSpec({ listeners: [tcp as typeof listener] }))[0]?.key).not.toBe(
      source?.key,
    );
    const fallback = { ...listener, filterChains: [{ ...filterChains[0], isDefault: true }] };
    expect(
      sourceObjects(configSpec({ listeners: [fallback as typeof listener] }))[0]?.key,
    ).not.toBe(source?.key);
  });

  it("lists added, modified and removed objects by kind and name", () => {
    const before = sourceManifest(
      sourceObjects(configSpec({ clusters: [clusterSpec("a"), clusterSpec("b")] })),
    );
    const after = sourceManifest(
      sourceObjects(
        configSpec({ clusters: [clusterSpec("b", [], { connectTimeoutMs: 9 }), clusterSpec("c")] }),
      ),
    );
    expect(diffManifests(before, after).map((c) => [c.kind, c.name, c.change])).toEqual([
      ["cluster", "a", "removed"],
      ["cluster", "b", "modified"],
      ["cluster", "c", "added"],
    ]);
    expect(diffManifests(after, after)).toEqual([]);
  });

  it("changes the draft revision when any object changes", () => {
    const one = sourceManifest(sourceObjects(configSpec({ clusters: [clusterSpec("a")] })));
    const two = sourceManifest(
      sourceObjects(configSpec({ clusters: [clusterSpec("a", [], { http2: true })] })),
    );
    expect(draftRevision(one)).toBe(
      draftRevision(sourceManifest(sourceObjects(configSpec({ clusters: [clusterSpec("a")] })))),
    );
    expect(draftRevision(one)).not.toBe(draftRevision(two));
    expect(draftRevision(EMPTY_MANIFEST)).not.toBe(draftRevision(one));
  });
});
