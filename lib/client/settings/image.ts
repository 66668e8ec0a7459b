/**
 * Avatar files → small raster data URLs, in the browser: check the type, shrink to 512 px on the
 * longest side on a canvas, encode WebP at quality 0.92. Owns the accepted types and the size rules; it never
 * uploads (the editor saves the result with the rest of the draft).
 */
import { LIMITS } from '../../state/model.ts'

/** Longest side of a stored avatar, in pixels. */
export const AVATAR_EDGE = 512
/** WebP quality of a stored avatar. */
const AVATAR_QUALITY = 0.92
/** Largest picked file we try to decode; a phone photo is 3–8 MB. */
export const MAX_INPUT_BYTES = 20 * 1024 * 1024
/** Raster types the picker accepts. SVG is refused: it can carry script. */
export const ACCEPTED_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const

/** Why a file was refused, with what the message needs. */
export type ImageProblem =
  | { kind: 'svg' }
  | { kind: 'type'; type: string }
  | { kind: 'tooLarge'; size: number; limit: number }
  | { kind: 'encodedTooLarge'; length: number; limit: number }
  /** The browser cannot open the file as a picture (damaged, or a format it does not read). */
  | { kind: 'decode' }
  /** The browser opened it but could not draw or encode it smaller (no canvas, an encoder that failed). */
  | { kind: 'redraw' }

/** Thrown by {@link shrinkImage}; `problem` says why. */
export class ImageError extends Error {
  readonly problem: ImageProblem
  constructor(problem: ImageProblem) {
    super(problem.kind)
    this.name = 'ImageError'
    this.problem = problem
  }
}

/** A shrunk avatar ready to save. */
export interface ShrunkImage {
  dataUrl: string
  width: number
  height: number
  /** Encoded size in bytes (before base64). */
  bytes: number
}

/** The refusal for `file`, or null when it may be decoded. Checked before any decoding work. */
export function checkImageFile(file: { name: string; type: string; size: number }): ImageProblem | null {
  if (file.type === 'image/svg+xml' || /\.svgz?$/i.test(file.name)) return { kind: 'svg' }
  if (!(ACCEPTED_TYPES as readonly string[]).includes(file.type)) return { kind: 'type', type: file.type || file.name }
  if (file.size > MAX_INPUT_BYTES) return { kind: 'tooLarge', size: file.size, limit: MAX_INPUT_BYTES }
  return null
}

/** Width and height scaled so the longest side is at most `edge` (never enlarged). */
export function fitWithin(
  width: number,
  height: number,
  edge: number = AVATAR_EDGE,
): { width: number; height: number } {
  const scale = Math.min(1, edge / Math.max(width, height))
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) }
}

/** Check, decode, shrink and encode `file`; throws {@link ImageError}. */
export async function shrinkImage(file: File): Promise<ShrunkImage> {
  const problem = checkImageFile(file)
  if (problem !== null) throw new ImageError(problem)
  let bitmap: ImageBitmap
  try {
    bitmap = await createImageBitmap(file)
  } catch {
    // The browser's words ("The source image could not be decoded.") are its own language's, and say no more.
    throw new ImageError({ kind: 'decode' })
  }
  const { width, height } = fitWithin(bitmap.width, bitmap.height)
  const canvas = document.createElement('canvas')
  canvas.width = width
  canvas.height = height
  const g = canvas.getContext('2d')
  if (g === null) throw new ImageError({ kind: 'redraw' })
  g.imageSmoothingQuality = 'high'
  g.drawImage(bitmap, 0, 0, width, height)
  bitmap.close()
  const blob = await new Promise<Blob | null>((resolve) => {
    canvas.toBlob(resolve, 'image/webp', AVATAR_QUALITY)
  })
  if (blob === null) throw new ImageError({ kind: 'redraw' })
  const dataUrl = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => {
      resolve(String(reader.result))
    }
    reader.onerror = () => {
      reject(new ImageError({ kind: 'redraw' }))
    }
    reader.readAsDataURL(blob)
  })
  if (dataUrl.length > LIMITS.avatar)
    throw new ImageError({ kind: 'encodedTooLarge', length: dataUrl.length, limit: LIMITS.avatar })
  return { dataUrl, width, height, bytes: blob.size }
}
