/**
 * Bounded reads: every file and stdin is read through these, so that a device (`/dev/zero`), a FIFO,
 * an endless pipe or a huge file ends in one clear line instead of filling memory. Only regular
 * files are accepted where a file is expected (`stat().size` of a device or FIFO is 0, so a size
 * check alone passes them).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Deadline } from './deadline.js';
import { UserError, errorMessage } from './errors.js';
import { mib } from './limits.js';

/** Why a path cannot be read, in words (ENOENT of a dangling link, ELOOP, EACCES, ...). */
export function fsReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ENOSPC':
      return 'no space left on device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EROFS':
      return 'read-only file system';
    default:
      return errorMessage(e);
  }
}

/** stat that follows links; a dangling link or a loop is a UserError naming `what`. */
export function statPath(path: string, what: string) {
  try {
    return statSync(path);
  } catch (e) {
    throw new UserError(`cannot read ${what} ${path}: ${fsReason(e)}`);
  }
}

/**
 * The bytes of a regular file, at most `maxBytes` (a UserError names `what` and the limit
 * otherwise). Reads from one descriptor, so a file that grows while read is still capped.
 */
export function readFileBounded(path: string, maxBytes: number, what: string, hint = ''): Buffer {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would wait for a writer; on a regular file it does nothing.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new UserError(`cannot read ${what} ${path}: ${fsReason(e)}`);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new UserError(`cannot read ${what} ${path}: is a directory`);
    if (!st.isFile()) throw new UserError(`cannot read ${what} ${path}: not a regular file (a device, FIFO or socket)`);
    if (st.size > maxBytes) throw tooLarge(what, path, maxBytes, hint);
    // Into one buffer of the file's size (no chunks copied together: a large file once in memory),
    // one byte more to see a file that grows while read, enlarged (up to the cap) if it does.
    let buf = Buffer.allocUnsafe(Math.min(Math.max(st.size, 65536), maxBytes) + 1);
    let total = 0;
    for (;;) {
      if (total === buf.length) {
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, maxBytes + 1));
        buf.copy(bigger, 0, 0, total);
        buf = bigger;
      }
      let n: number;
      try {
        n = readSync(fd, buf, total, buf.length - total, null);
      } catch (e) {
        throw new UserError(`cannot read ${what} ${path}: ${fsReason(e)}`);
      }
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw tooLarge(what, path, maxBytes, hint);
    }
    return buf.subarray(0, total);
  } finally {
    closeSync(fd);
  }
}

function tooLarge(what: string, path: string, maxBytes: number, hint: string): UserError {
  return new UserError(
    `cannot read ${what} ${path}: larger than ${mib(maxBytes)} (--max-bytes)${hint ? `; ${hint}` : ''}`,
  );
}

/**
 * A stream (stdin) read to its end, at most `maxBytes`, and, given a deadline, no longer than it
 * lasts: a pipe whose writer never closes it (`kubectl get -w | meshdoctor check --snapshot -`, a
 * stdin inherited from a shell that stays open) ends at --timeout with one line, as every other read
 * does. Past the deadline the stream is destroyed, so that nothing is left holding the process.
 */
export async function readStreamBounded(
  stream: AsyncIterable<unknown> & { destroy?: () => void },
  maxBytes: number,
  what: string,
  deadline?: Deadline,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  const read = (async () => {
    for await (const chunk of stream) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      total += b.length;
      if (total > maxBytes) throw new UserError(`cannot read ${what}: more than ${mib(maxBytes)} (--max-bytes)`);
      chunks.push(b);
    }
    return Buffer.concat(chunks, total);
  })();
  if (!deadline) return read;
  read.catch(() => {}); // past the deadline its end is of no interest
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        reject(deadline.late(`reading ${what}`));
        stream.destroy?.();
      },
      Math.min(deadline.remainingMs(), 2 ** 31 - 1),
    );
  });
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Bytes to text: UTF-8, a UTF-8 byte-order mark dropped (editors on Windows write one); UTF-16
 * (kubectl output redirected by PowerShell) is decoded by its mark.
 */
export function decodeText(buf: Buffer): string {
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return buf.subarray(3).toString('utf8');
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2).toString('utf16le');
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) {
    const swapped = Buffer.from(buf.subarray(2, 2 + ((buf.length - 2) & ~1)));
    swapped.swap16();
    return swapped.toString('utf16le');
  }
  return buf.toString('utf8');
}

/** The file operations replaceFile uses; a test injects a failing write (a full disk) through it. */
export const fileOps = { writeSync, fsyncSync, renameSync };

/**
 * Write `text` to `path` so that the path holds either the old file or the whole new one, never a
 * part: the text goes to a new temporary file in the same directory (created exclusively, under
 * an unguessable name, so nothing planted there is written through), is flushed to disk, and is
 * renamed over `path`. rename(2) replaces a symbolic link at `path` itself, never the file it
 * points to. On any failure the temporary file is removed and the old file is left as it was.
 * A regular file's permission bits are kept; a device, FIFO or directory at `path` is refused.
 */
export function replaceFile(path: string, text: string, what: string): void {
  const fail = (e: unknown): never => {
    throw new UserError(`cannot write ${what} ${path}: ${fsReason(e)}`);
  };
  let mode: number | undefined;
  try {
    const st = lstatSync(path);
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (!st.isFile() && !st.isSymbolicLink()) throw new Error('not a regular file (a device, FIFO or socket)');
    if (st.isFile()) mode = st.mode & 0o777;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') fail(e);
  }
  // A dot file beside the target; the name is cut so that the whole stays within NAME_MAX (255 bytes).
  const tmp = join(dirname(path), `.${basename(path).slice(0, 100)}.${randomBytes(12).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o666);
  } catch (e) {
    fail(e);
  }
  try {
    if (mode !== undefined) fchmodSync(fd!, mode);
    const buf = Buffer.from(text, 'utf8');
    for (let off = 0; off < buf.length;) off += fileOps.writeSync(fd!, buf, off, buf.length - off);
    // On disk before the rename: a crash must not leave an empty file where the old report was.
    fileOps.fsyncSync(fd!);
    closeSync(fd!);
    fd = undefined;
    fileOps.renameSync(tmp, path);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // already gone: nothing left behind
    }
    fail(e);
  }
}
