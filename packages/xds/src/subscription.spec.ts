import { createResource, TypeUrl, type XdsResource } from "@switchyard/snapshot";
import { describe, expect, it } from "vitest";
import { isSharedList, type Offer, Subscription, sharedList } from "./subscription.js";

const CDS = TypeUrl.Cluster;

/** A cluster resource whose content (and so version) is `content`. */
function cluster(name: string, content = name): XdsResource {
  return createResource(CDS, name, new TextEncoder().encode(content), []);
}

function offer(resources: XdsResource[], target: XdsResource[] = resources): Offer {
  return {
    basis: new Map(resources.map((r) => [r.name, r])),
    target: new Map(target.map((r) => [r.name, r])),
  };
}

const names = (resources: readonly XdsResource[]) => resources.map((r) => r.name);

/** Sends what `subscription` lacks against `o` (Delta style) with `nonce`. */
function send(subscription: Subscription, o: Offer, nonce: string) {
  const { resources, removed, missing } = subscription.difference(o);
  subscription.markSent(nonce, `v${nonce}`, {
    replace: false,
    sent: resources,
    removed: [...removed, ...missing],
  });
  return { resources: names(resources), removed, missing };
}

describe("Subscription (the core shared by SotW and Delta)", () => {
  it("SotW: a type whose requests never named a resource is a wildcard; once one was named, an empty list means nothing", () => {
    const s = new Subscription(CDS);
    s.replaceNames([], true);
    expect(s.wildcard).toBe(true);
    s.replaceNames([], true);
    expect(s.wildcard).toBe(true);
    s.replaceNames(["*", "a"], true);
    expect([s.wildcard, [...s.names]]).toEqual([true, ["a"]]);
    s.replaceNames(["a"], true);
    expect([s.wildcard, [...s.names]]).toEqual([false, ["a"]]);
    s.replaceNames([], true);
    expect([s.wildcard, [...s.names]]).toEqual([false, []]);
  });

  it("SotW: a list repeated is the subscription it was; one that differs in any name, order aside, or in a repeated name replaces it", () => {
    const s = new Subscription(CDS);
    const list = ["a", "b", "c"];
    s.replaceNames(list, true);
    s.replaceNames(["a", "b", "c"], true);
    expect([...s.names]).toEqual(["a", "b", "c"]);
    // The caller's array changing afterwards changes nothing it set.
    list.pop();
    s.replaceNames(list, true);
    expect([...s.names]).toEqual(["a", "b"]);
    s.replaceNames(["a", "a", "b"], true);
    expect([...s.names]).toEqual(["a", "b"]);
    s.replaceNames(["a", "a", "c"], true);
    expect([s.covers("b"), s.covers("c")]).toEqual([false, true]);
    // Delta changes in between: the same list replaces them.
    s.changeNames(["d"], []);
    s.replaceNames(["a", "a", "c"], true);
    expect(s.covers("d")).toBe(false);
  });

  it("Delta: the same rule with subscribe and unsubscribe", () => {
    const s = new Subscription(CDS);
    s.changeNames([], []);
    expect(s.wildcard).toBe(true);
    s.changeNames(["a"], []);
    expect([s.wildcard, [...s.names]]).toEqual([true, ["a"]]);
    s.changeNames([], ["*"]);
    expect([s.wildcard, [...s.names]]).toEqual([false, ["a"]]);
    s.changeNames([], ["a"]);
    s.changeNames([], []);
    expect([s.wildcard, [...s.names]]).toEqual([false, []]);
  });

  it("nodes lacking the same resources of an offer are given one shared list, whether they subscribe by wildcard or by name", () => {
    const o = offer([cluster("a"), cluster("b"), cluster("c")]);
    const subscribed = (names: string[], wildcard = false) => {
      const s = new Subscription(CDS);
      s.replaceNames(wildcard ? [] : names, true);
      return s.difference(o).resources;
    };
    const all = subscribed([], true);
    expect(names(all)).toEqual(["a", "b", "c"]);
    expect(subscribed(["c", "b", "a"])).toBe(all);
    const part = subscribed(["a", "b"]);
    expect(names(part)).toEqual(["a", "b"]);
    expect(subscribed(["b", "a"])).toBe(part);
    expect(subscribed(["a", "c"])).not.toBe(part);
    expect([isSharedList(all), isSharedList(part), isSharedList([...all])]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("past 10,000 list entries per version (and four per resource), lists are given out unshared: clients naming ever other subsets cannot grow what is kept", () => {
    const many = Array.from({ length: 200 }, (_, i) => cluster(`c${String(i).padStart(3, "0")}`));
    const basis = new Map(many.map((r) => [r.name, r]));
    // All but one, for each: ~20,000 entries in all.
    const lists = many.map((_, skip) =>
      sharedList(
        many.filter((__, i) => i !== skip),
        basis,
      ),
    );
    expect(isSharedList(lists[0] ?? [])).toBe(true);
    expect(isSharedList(lists[199] ?? [])).toBe(false);
    const again = many.slice(1);
    expect(sharedList(again, basis)).toBe(lists[0]);
  });

  it("what the client holds moves only when it ACKs the response in flight", () => {
    const s = new Subscription(CDS);
    s.start();
    s.changeNames(["a"], []);
    send(s, offer([cluster("a")]), "1");
    expect(s.holds.size).toBe(0);
    expect(s.acknowledge("0")).toBe(false);
    expect(s.awaitingAnswer).toBe(true);
    expect(s.acknowledge("1")).toBe(true);
    expect([...s.holds]).toEqual([["a", cluster("a").version]]);
    expect(s.ackedVersion).toBe("v1");
  });

  it("streams that start fresh share their held maps from the first ACK on; what a reconnecting client declares it holds is its own", () => {
    const v1 = offer([cluster("a"), cluster("b")]);
    const a = cluster("a").version;
    const streams = Array.from({ length: 4 }, () => new Subscription(CDS));
    for (const [i, s] of streams.entries()) {
      s.start();
      s.changeNames([], []);
      if (i < 2)
        s.declareHeld([]); // Delta, fresh: no initial_resource_versions
      else s.declareHeld([["a", a]]); // Delta, reconnecting: holds a
      send(s, v1, `${i}`);
      s.acknowledge(`${i}`);
    }
    const [fresh1, fresh2, back1, back2] = streams;
    expect(fresh1?.holds).toBe(fresh2?.holds);
    expect(back1?.holds).not.toBe(back2?.holds);
    expect([...(back1?.holds ?? [])]).toEqual([
      ["a", a],
      ["b", cluster("b").version],
    ]);
    // A SotW reconnect that named the version of the server's own content: shared.
    const sotw = [new Subscription(CDS), new Subscription(CDS)];
    for (const s of sotw) s.assumeHeld([["a", a]], "v9");
    expect(sotw[0]?.holds).toBe(sotw[1]?.holds);
    expect([...(sotw[0]?.holds ?? [])]).toEqual([["a", a]]);
  });

  it("subscriptions that ACK the same responses share one held map, and a later NACK or unsubscribe of one leaves the others' as they were", () => {
    const v1 = offer([cluster("a"), cluster("b")]);
    const v2 = offer([cluster("a", "a2"), cluster("b")]);
    const subscriptions = [new Subscription(CDS), new Subscription(CDS), new Subscription(CDS)];
    for (const [i, s] of subscriptions.entries()) {
      s.changeNames([], []);
      send(s, v1, `${i}-1`);
      s.acknowledge(`${i}-1`);
    }
    const [one, two, three] = subscriptions;
    if (one === undefined || two === undefined || three === undefined) throw new Error("three");
    expect(one.holds).toBe(two.holds);
    expect(one.holds).toBe(three.holds);
    const shared = [...one.holds];

    send(one, v2, "1-2");
    expect(one.reject("1-2", "a: bad")).toEqual({ rejected: new Set(["a"]) });
    three.changeNames([], ["*"]);
    expect([...two.holds]).toEqual(shared);
    expect(two.holds).not.toBe(three.holds);
    expect([...three.holds]).toEqual([]);

    send(two, v2, "2-2");
    two.acknowledge("2-2");
    expect([...two.holds]).toEqual([
      ["a", cluster("a", "a2").version],
      ["b", cluster("b").version],
    ]);
  });

  it("a NACK leaves what the client holds and is not offered again until a new snapshot", () => {
    const s = new Subscription(CDS);
    s.start();
    s.changeNames(["a"], []);
    send(s, offer([cluster("a")]), "1");
    s.acknowledge("1");
    const bad = offer([cluster("a", "bad")]);
    expect(send(s, bad, "2").resources).toEqual(["a"]);
    expect(s.reject("2", "Proto constraint validation failed")).toEqual({});
    expect(s.holds.get("a")).toBe(cluster("a").version);
    expect(s.difference(bad).resources).toEqual([]);
    // Another version is another offer; and a new snapshot forgets the rejection.
    expect(names(s.difference(offer([cluster("a", "fixed")])).resources)).toEqual(["a"]);
    s.forgetRejections();
    expect(names(s.difference(bad).resources)).toEqual(["a"]);
  });

  it("a NACK naming some resources of a response rejects those only: the client holds the rest, removals included", () => {
    const s = new Subscription(CDS);
    s.start();
    s.replaceNames([], true);
    send(s, offer([cluster("a"), cluster("old")]), "1");
    s.acknowledge("1");
    // a changes, b is new, old is removed.
    send(s, offer([cluster("a", "bad"), cluster("b")]), "2");

    expect(s.reject("2", "resource index 0: a: INVALID_ARGUMENT: bad")).toEqual({
      rejected: new Set(["a"]),
    });
    expect([...s.holds]).toEqual([
      ["a", cluster("a").version],
      ["b", cluster("b").version],
    ]);
    // The rejected version is not offered again; the accepted b is not resent.
    expect(s.difference(offer([cluster("a", "bad"), cluster("b")])).resources).toEqual([]);
  });

  it("a subscribed name absent from the offer but in the target is on its way, not missing", () => {
    const s = new Subscription(CDS);
    s.start();
    s.changeNames(["later", "never"], []);
    const d = s.difference(offer([], [cluster("later")]));
    expect([names(d.resources), d.missing]).toEqual([[], ["never"]]);
  });

  it("a held name the offer no longer has is removed; a forced one is sent although held", () => {
    const s = new Subscription(CDS);
    s.start();
    s.changeNames([], []);
    s.declareHeld([
      ["a", cluster("a").version],
      ["b", cluster("b").version],
    ]);
    expect(s.difference(offer([cluster("a")])).removed).toEqual(["b"]);
    s.forceResend(["a", "unknown"]);
    expect([...s.forced]).toEqual(["a"]);
    expect(names(s.difference(offer([cluster("a")])).resources)).toEqual(["a"]);
  });

  it("SotW: dropping the wildcard keeps what only it covered for LDS/CDS (the next full state removes it), forgets it for EDS/RDS", () => {
    for (const keep of [true, false]) {
      const s = new Subscription(CDS);
      s.start();
      s.replaceNames(["*", "a"], keep);
      s.declareHeld([
        ["a", cluster("a").version],
        ["b", cluster("b").version],
      ]);
      s.replaceNames(["a"], keep);
      expect(s.difference(offer([cluster("a"), cluster("b")])).removed).toEqual(keep ? ["b"] : []);
    }
  });

  it("an explicit unsubscribe is forgotten at once; under a wildcard it must be answered", () => {
    const s = new Subscription(CDS);
    s.start();
    s.changeNames(["*", "a", "b"], []);
    s.declareHeld([
      ["a", cluster("a").version],
      ["b", cluster("b").version],
    ]);
    s.changeNames([], ["a"]);
    expect([...s.forced]).toEqual(["a"]);
    s.changeNames([], ["*"]);
    s.changeNames([], ["b"]);
    expect([...s.holds.keys()]).toEqual([]);
    expect(s.forced.size).toBe(0);
  });
});
