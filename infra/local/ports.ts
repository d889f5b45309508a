import { createServer, type Server } from 'node:net';

/**
 * Asks the OS for a free TCP port on 127.0.0.1 (listen on port 0, read it, close).
 * The port is free when this resolves; a tiny race with other processes remains, which is
 * acceptable for a local stack and tests.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      const port = address !== null && typeof address === 'object' ? address.port : undefined;
      server.close((err) => {
        if (err) reject(err);
        else if (port === undefined) reject(new Error('freePort: could not read the assigned port'));
        else resolve(port);
      });
    });
  });
}

const listenError = (error: NodeJS.ErrnoException, port: number, what: string): Error =>
  new Error(error.code === 'EADDRINUSE' ? `${what}: port ${port} is already in use (is another npm start running? try --port/--auth-port)` : `${what}: ${error.message}`);

/** Starts a server on 127.0.0.1:port; a taken port rejects with a readable message instead of crashing the process. */
export const listenOnLoopback = (server: Server, port: number, what: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => reject(listenError(error, port, what));
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', fail);
      resolve();
    });
  });

/**
 * Holds a port on 127.0.0.1 (0: any free one) until release(): for a server that must be known
 * before it can start (the gateway, whose URL the identity provider and the seed need). A port
 * only looked up with freePort could meanwhile become the local port of an outgoing connection.
 */
export const holdPort = async (port = 0, what = 'server'): Promise<{ port: number; release: () => Promise<void> }> => {
  const holder = createServer();
  await new Promise<void>((resolve, reject) => {
    holder.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, port, what)));
    holder.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve());
  });
  const address = holder.address();
  if (address === null || typeof address !== 'object') throw new Error('holdPort: could not read the assigned port');
  return { port: address.port, release: () => new Promise<void>((resolve) => holder.close(() => resolve())) };
};
