import QRCode from 'qrcode'

/**
 * A YUV4MPEG2 video (the format Chromium's `--use-file-for-fake-video-capture` plays, looping)
 * whose frames show `text` as a QR code, or a blank picture when `text` is null. Planar I420:
 * a luma plane, then quarter-size Cb and Cr planes; the code is black on white, so chroma stays
 * neutral (128) and luma is the video range's black (16) and white (235) of BT.601.
 */
export function qrVideo(
  text: string | null,
  options: { width?: number; height?: number; frames?: number } = {},
): Buffer {
  const width = options.width ?? 640
  const height = options.height ?? 480
  const frames = options.frames ?? 3
  const luma = Buffer.alloc(width * height, 235)
  if (text !== null) {
    const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' })
    // Four modules of quiet zone on each side (ISO/IEC 18004 §6.3.8).
    const scale = Math.floor(Math.min(width, height) / (modules.size + 8))
    if (scale < 2)
      throw new Error(`The QR code (${modules.size} modules) does not fit ${width}x${height} at 2 px per module`)
    const left = Math.floor((width - modules.size * scale) / 2)
    const top = Math.floor((height - modules.size * scale) / 2)
    for (let row = 0; row < modules.size; row += 1) {
      for (let col = 0; col < modules.size; col += 1) {
        if (!modules.get(row, col)) continue
        for (let y = 0; y < scale; y += 1)
          luma.fill(
            16,
            (top + row * scale + y) * width + left + col * scale,
            (top + row * scale + y) * width + left + (col + 1) * scale,
          )
      }
    }
  }
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128)
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma])
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`)
  return Buffer.concat([header, ...Array.from({ length: frames }, () => frame)])
}
