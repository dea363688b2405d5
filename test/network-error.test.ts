/** The transport error quoted from an app's termination message, and nothing else of it (src/k8s/network-error.ts). */
import { describe, expect, it } from 'vitest';
import { networkFailure } from '../src/k8s/network-error.js';

describe('networkFailure', () => {
  it.each([
    [
      'level=error msg="failed to request new Vault token" err="Put \\"https://vault.bootstrap:8200/v1/auth/kubernetes/login\\": dial tcp 172.24.120.198:8200: connect: connection refused"',
      'dial tcp 172.24.120.198:8200: connect: connection refused',
    ],
    [
      'Error: dial tcp: lookup db.shop.svc on 10.96.0.10:53: no such host',
      'lookup db.shop.svc on 10.96.0.10:53: no such host',
    ],
    [
      'curl: (7) Failed to connect to config port 443 after 3 ms: Connection refused',
      'Failed to connect to config port 443 after 3 ms: Connection refused',
    ],
    [
      'Error checking main: connection to server at "10.20.0.14", port 5432 failed: Connection refused Is the server running',
      'connection to server at "10.20.0.14", port 5432 failed: Connection refused',
    ],
    [
      "Connecting to x (1.2.3.4:80)\nwget: can't connect to remote host (1.2.3.4): Connection refused",
      "can't connect to remote host (1.2.3.4): Connection refused",
    ],
    ['Get "http://a:80/": dial tcp 10.0.0.1:80: i/o timeout', 'dial tcp 10.0.0.1:80: i/o timeout'],
  ])('%s', (message, phrase) => {
    expect(networkFailure(message)).toBe(phrase);
  });

  it('keeps nothing of a message without a transport error, and never the text around one', () => {
    expect(networkFailure('migration 0042 failed: duplicate key value violates unique constraint')).toBeUndefined();
    expect(networkFailure(undefined)).toBeUndefined();
    const secret = 'postgres://admin:hunter2@db:5432/app?sslmode=disable token=abc123';
    const got = networkFailure(`${secret} dial tcp 10.0.0.5:5432: connect: connection refused`)!;
    expect(got).toBe('dial tcp 10.0.0.5:5432: connect: connection refused');
    expect(got).not.toMatch(/hunter2|abc123|admin/);
  });

  it('is bounded: a long hostile message is read from its last 64 KiB, the phrase cut to 300 characters', () => {
    const host = 'a'.repeat(250);
    expect(
      networkFailure(`${'x: '.repeat(200_000)}dial tcp ${host}:1: connect: connection refused`)!.length,
    ).toBeLessThanOrEqual(300);
    expect(networkFailure(`dial tcp 1.1.1.1:1: connection refused${' '.repeat(70_000)}`)).toBeUndefined();
  });
});
