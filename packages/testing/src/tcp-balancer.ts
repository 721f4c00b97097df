import * as net from "node:net";

/**
 * A TCP load balancer, as users put in front of several replicas (HAProxy or an L4 cloud balancer
 * in TCP mode): each accepted connection goes to the next backend in turn that accepts it, and
 * the two sides are spliced until either ends. A backend that refuses is skipped; when every
 * backend refuses, the client's connection is closed. There are no health checks: a backend that
 * went away is found out on the next connection, as with a balancer whose checks have not run.
 */
export interface TcpBalancer {
  readonly port: number;
  /** How many connections each backend port has accepted so far. */
  readonly accepted: ReadonlyMap<number, number>;
  close(): Promise<void>;
}

export async function startTcpBalancer(backendPorts: readonly number[]): Promise<TcpBalancer> {
  let next = 0;
  const accepted = new Map<number, number>();
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  /** Connects to the first backend, from the next in turn, that accepts. */
  const connectUpstream = (tries: number): Promise<net.Socket | undefined> => {
    if (tries === 0) return Promise.resolve(undefined);
    const port = backendPorts[next % backendPorts.length] as number;
    next += 1;
    return new Promise((resolve) => {
      const upstream = net.connect(port, "127.0.0.1");
      upstream.once("connect", () => {
        upstream.removeAllListeners("error");
        accepted.set(port, (accepted.get(port) ?? 0) + 1);
        resolve(upstream);
      });
      upstream.once("error", () => {
        upstream.destroy();
        resolve(connectUpstream(tries - 1));
      });
    });
  };
  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    client.on("error", () => client.destroy());
    void connectUpstream(backendPorts.length).then((upstream) => {
      if (upstream === undefined || client.destroyed) {
        upstream?.destroy();
        client.destroy();
        return;
      }
      track(upstream);
      upstream.on("error", () => upstream.destroy());
      // Either side ending or failing ends the other: a replica killed outright resets its
      // connections, and the client sees its connection drop, as behind a real balancer.
      upstream.once("close", () => client.destroy());
      client.once("close", () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    accepted,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
