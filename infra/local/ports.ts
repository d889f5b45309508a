import { createServer } from 'node:net';

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
