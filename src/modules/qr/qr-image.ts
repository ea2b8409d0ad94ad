import QRCode from 'qrcode'

/**
 * A QR code as an SVG data URL (DESIGN.md "QR": image as an SVG or PNG data URL). SVG is text,
 * small and resolution-independent; error correction M keeps the payload of a presentation
 * request or offer (a few hundred bytes of JSON) scannable from a screen.
 */
export async function qrSvgDataUrl(payload: string): Promise<string> {
  const svg = await QRCode.toString(payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`
}
