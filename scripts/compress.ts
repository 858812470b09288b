/**
 * After the build: a brotli (.br) and a gzip (.gz) copy beside every text or wasm file of the site,
 * so any static host (and `npm run preview`) can send them compressed without compressing on the fly.
 * Pyodide's 9.6 MB wasm gets brotli quality 9 (quality 11 takes minutes on it for a ~10 % smaller
 * file); the rest quality 11 (the 9.7 MB standard library archive, stored: 20 s, once per machine).
 * Results are cached by content hash under node_modules/.cache, so Pyodide's files are compressed
 * once per machine, not once per build.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const COMPRESSIBLE = /\.(html|js|mjs|css|json|wasm|svg|txt|py|map|zip|snapshot)$/;
const CACHE = resolve('node_modules/.cache/steplight-compress');
const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const info = statSync(path);
    if (info.isDirectory()) yield* files(path);
    else if (COMPRESSIBLE.test(name) && info.size >= 1024) yield path;
  }
}

async function cached(kind: 'br' | 'gz' | 'floor.br', data: Buffer, make: () => Promise<Buffer>): Promise<Buffer> {
  const key = join(CACHE, `${createHash('sha256').update(data).digest('hex')}.${kind}`);
  if (existsSync(key)) return readFileSync(key);
  const out = await make();
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(key, out);
  return out;
}

/** The compression floor of a file: brotli at its best quality (11, the largest window); cached. */
export function floorBytes(data: Buffer): Promise<number> {
  const params = { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: data.length };
  return cached('floor.br', data, () => brotli(data, { params })).then((b) => b.length);
}

export async function compressSite(dir: string) {
  let raw = 0;
  let br = 0;
  await Promise.all(
    [...files(dir)].map(async (path) => {
      const data = readFileSync(path);
      const quality = path.endsWith('.wasm') && data.length > 1_500_000 ? 9 : 11;
      const params = { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: data.length };
      const [b, g] = await Promise.all([cached('br', data, () => brotli(data, { params })), cached('gz', data, () => gz(data, { level: 9 }))]);
      writeFileSync(`${path}.br`, b);
      writeFileSync(`${path}.gz`, g);
      raw += data.length;
      br += b.length;
    }),
  );
  return { raw, br };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = resolve(process.env.STEPLIGHT_OUT ?? 'dist');
  const { raw, br } = await compressSite(dir);
  console.log(`compressed ${dir}: ${(raw / 1e6).toFixed(2)} MB → ${(br / 1e6).toFixed(2)} MB brotli`);
}
