/**
 * Pixel size of an image from its header (PNG, JPEG, WebP), so an image given to avatar create can
 * be checked to be an image, within the size limits, and given its format without a decoder. The
 * parser lives in the media layer, where the renderers check every supplied picture the same way.
 */
export { readImageSize, type ImageSize } from "../../../media/image-header.js";
