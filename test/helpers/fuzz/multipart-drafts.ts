import { Buffer } from 'node:buffer'
import fc from 'fast-check'
import { multipart, PDF_BYTES, type Part } from '../wallet-fixtures.js'
import { hostileString, wellFormed } from './hostile-values.js'
import type { BodyDraft } from './request-model.js'
import type { Target } from './route-targets.js'

const JSON_TYPE = 'application/json'
const pick = <T>(items: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...items)

/** Multipart uploads that must be refused: broken framing, no file, wrong file, or the wrong media type. */
export function multipartInvalid(
  target: Target,
  wrongContentTypes: readonly string[],
): fc.Arbitrary<{ body: BodyDraft; label: string }> {
  const isAvatar = target.url.endsWith('/avatar')
  const file = (data: Buffer, type: string, filename = 'f.bin') => ({ name: 'file', filename, contentType: type, data })
  const variants: Array<{ label: string; make: () => { payload: Buffer; contentType: string } }> = [
    {
      label: 'multipart garbage',
      make: () => ({ payload: Buffer.from('garbage'), contentType: 'multipart/form-data; boundary=zzz' }),
    },
    {
      label: 'multipart without boundary',
      make: () => ({ payload: Buffer.from('--zzz\r\n\r\n'), contentType: 'multipart/form-data' }),
    },
    {
      label: 'multipart truncated',
      make: () => ({
        payload: Buffer.from(
          '--zzz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG',
        ),
        contentType: 'multipart/form-data; boundary=zzz',
      }),
    },
    {
      label: 'multipart header garbage',
      make: () => ({
        payload: Buffer.from('--zzz\r\nContent-Disposition\r\n\r\nx\r\n--zzz--\r\n'),
        contentType: 'multipart/form-data; boundary=zzz',
      }),
    },
    {
      label: 'multipart empty',
      make: () => ({ payload: Buffer.alloc(0), contentType: 'multipart/form-data; boundary=zzz' }),
    },
    {
      label: 'multipart fields only',
      make: () =>
        multipartBody([
          { name: 'label', value: 'transcript' },
          { name: 'other', value: 'x' },
        ]),
    },
    {
      label: 'multipart empty file',
      make: () =>
        multipartBody([
          { name: 'label', value: 'transcript' },
          file(Buffer.alloc(0), isAvatar ? 'image/png' : 'application/pdf'),
        ]),
    },
  ]
  if (isAvatar) {
    variants.push(
      {
        label: 'avatar not an image',
        make: () => multipartBody([file(Buffer.from('<svg onload=alert(1)>'), 'image/png', 'a.png')]),
      },
      { label: 'avatar declared as another type', make: () => multipartBody([file(PNG_BYTES, 'image/gif', 'a.gif')]) },
      {
        label: 'avatar over the size limit',
        make: () =>
          multipartBody([file(Buffer.concat([PNG_BYTES, Buffer.alloc(2 * 1024 * 1024 + 10)]), 'image/png', 'big.png')]),
      },
    )
  } else {
    variants.push(
      { label: 'evidence without label', make: () => multipartBody([file(PDF_BYTES, 'application/pdf', 'a.pdf')]) },
      {
        label: 'evidence with a hostile label',
        make: () =>
          multipartBody([{ name: 'label', value: '../\u0000\u202e' }, file(PDF_BYTES, 'application/pdf', 'a.pdf')]),
      },
      {
        label: 'evidence of a refused type',
        make: () =>
          multipartBody([
            { name: 'label', value: 'transcript' },
            file(Buffer.from('MZ\x90\x00'), 'application/x-msdownload', 'a.exe'),
          ]),
      },
      {
        label: 'evidence with too many parts',
        make: () =>
          multipartBody([
            { name: 'label', value: 'transcript' },
            ...Array.from({ length: 8 }, (_, i) => ({ name: `f${i}`, value: 'x' })),
            file(PDF_BYTES, 'application/pdf', 'a.pdf'),
          ]),
      },
    )
  }
  return fc.oneof(
    pick(variants).map((v) => ({
      body: { kind: 'multipart', ...v.make(), invalid: true, label: v.label } as BodyDraft,
      label: v.label,
    })),
    pick(['{"label":"transcript"}', '{']).map((text) => ({
      body: { kind: 'text', text, contentType: JSON_TYPE, label: 'JSON to a multipart route' } as BodyDraft,
      label: 'JSON to a multipart route',
    })),
    pick(wrongContentTypes).map((ct) => ({
      body: { kind: 'text', text: 'x', contentType: ct, label: `content-type ${JSON.stringify(ct)}` } as BodyDraft,
      label: `content-type ${JSON.stringify(ct)} to a multipart route`,
    })),
  )
}

/** Well-formed uploads with hostile names, labels and part headers: anything but a 5xx. */
export function multipartHostile(target: Target): fc.Arbitrary<{ body: BodyDraft; label: string }> {
  const isAvatar = target.url.endsWith('/avatar')
  return fc
    .tuple(
      hostileString,
      hostileString,
      pick([
        'image/png',
        'application/pdf',
        'text/plain',
        'application/octet-stream',
        'image/png; charset=x',
        'x/y',
        '',
      ]),
    )
    .map(([name, label, type]) => {
      const filename = wellFormed(name).replace(/[\r\n"]/g, '_')
      const parts: Part[] = isAvatar
        ? [{ name: 'file', filename, contentType: type || 'image/png', data: PNG_BYTES }]
        : [
            { name: 'label', value: wellFormed(label) },
            { name: 'file', filename, contentType: type || 'text/plain', data: Buffer.from('evidence text') },
          ]
      return {
        body: { kind: 'multipart', ...multipartBody(parts), invalid: false, label: 'hostile upload' } as BodyDraft,
        label: `upload named ${JSON.stringify(filename).slice(0, 30)}`,
      }
    })
}

/** A wallet-fixtures multipart body, as a multipart draft carries it. */
function multipartBody(parts: Part[]): { payload: Buffer; contentType: string } {
  const { payload, headers } = multipart(parts)
  return { payload, contentType: headers['content-type']! }
}

// A 1x1 PNG (the upload routes sniff the signature).
const PNG_BYTES = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)
