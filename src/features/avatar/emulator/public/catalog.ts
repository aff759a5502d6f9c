import fs from "node:fs";
import path from "node:path";
import { notice } from "../../../../engine/notices.js";
import { type LookFormat, MODEL_AVAILABLE } from "../../contract.js";
import { ensureFiles } from "../../../../local/media-cache.js";

/**
 * The public avatar catalog of the local instance: people with looks in both formats, in the
 * vocabulary of hosted-facts.md (age_range, hair_color, place, emotion). Each look's thumbnail is a
 * real PNG rendered from the look's description the first time a response hands out its URL.
 */
/** What describes a look, wherever it lives (catalog, space row, or one being created). */
export interface LookTraits {
  name: string;
  place: string;
  accessories: string[];
  action: string;
  emotion: string;
  selfie: boolean;
  format: LookFormat;
}

export interface CatalogLook extends LookTraits {
  id: string;
  model_available: string[];
  /** What the look suits (`GET /avatar/list?tags=`); a synced look has the hosted one's, if any. */
  tags?: string[];
  /** What the picture shows; the local renderer draws it. */
  description: string;
  /**
   * The look's real picture, media-dir-relative, copied from the hosted service by `local catalog
   * sync --avatars`; absent: the local renderer draws one from `description`.
   */
  image?: string;
}

export interface CatalogAvatar {
  id: string;
  name: string;
  gender: "male" | "female";
  age: string;
  age_range: string;
  ethnicity: string;
  hair_color: string;
  looks: CatalogLook[];
}

const BASIC = ["standard", "omni-flash"];
const PREMIUM = ["standard", "premium", "omni-flash", "ora-lite", "ora-standard"];
/** Every model the service names for a look. */
const FULL = [...MODEL_AVAILABLE];
const VID = ["standard", "premium", "vidA-3-fast", "vidA-3-lite", "vidB-2-fast", "vidB-2-5"];

function look(
  id: string,
  name: string,
  format: LookFormat,
  place: string,
  action: string,
  emotion: string,
  accessories: string[],
  model_available: string[],
  description: string,
  selfie = false,
): CatalogLook {
  return { id, name, place, accessories, action, emotion, selfie, format, model_available, description, tags: LOOK_TAGS[id] ?? [] };
}

/** The tags of the built-in catalog's looks, in the docs' spirit (`ecommerce`, `business`, …). */
const LOOK_TAGS: Record<string, string[]> = {
  lk_maya_kitchen: ["food", "lifestyle", "ecommerce"],
  lk_maya_office: ["business", "corporate", "education"],
  lk_maya_beach: ["travel", "lifestyle", "ugc"],
  lk_james_podcast: ["podcast", "business", "education"],
  lk_james_car: ["ugc", "lifestyle"],
  lk_lena_gym: ["fitness", "health", "ugc"],
  lk_lena_home: ["lifestyle", "ecommerce", "ugc"],
  lk_lena_studio: ["business", "ecommerce", "ads"],
  lk_kenji_street: ["ugc", "lifestyle", "travel"],
  lk_kenji_bedroom: ["gaming", "tech", "ugc"],
  lk_aisha_office: ["business", "corporate", "finance"],
  lk_aisha_outdoor: ["lifestyle", "travel"],
  lk_robert_home: ["education", "lifestyle"],
  lk_robert_outdoor: ["lifestyle", "outdoor"],
  lk_robert_kitchen: ["food", "ecommerce"],
  lk_robert_office: ["business", "finance", "corporate"],
  lk_priya_bedroom: ["ugc", "beauty", "lifestyle"],
  lk_priya_home: ["education", "tech"],
  lk_marco_bathroom: ["beauty", "ugc", "ecommerce"],
  lk_marco_kitchen: ["food", "lifestyle"],
  lk_marco_car: ["ugc", "automotive"],
  lk_zoe_beach: ["travel", "lifestyle", "ads"],
  lk_zoe_podcast: ["podcast", "business", "education"],
  lk_diego_gym: ["fitness", "health", "ads"],
  lk_diego_street: ["ugc", "lifestyle", "fashion"],
  lk_diego_studio: ["business", "tech", "ecommerce"],
};

export const CATALOG_AVATARS: readonly CatalogAvatar[] = [
  {
    id: "av_maya",
    name: "Maya",
    gender: "female",
    age: "28",
    age_range: "young_adult",
    ethnicity: "hispanic",
    hair_color: "brown",
    looks: [
      look("lk_maya_kitchen", "Maya in the kitchen", "vertical", "kitchen", "cooking", "happy", ["apron"], PREMIUM, "woman cooking in a bright kitchen, apron"),
      look("lk_maya_office", "Maya at the office", "horizontal", "office", "presenting", "confident", ["glasses"], FULL, "woman presenting at a desk, glasses"),
      look(
        "lk_maya_beach",
        "Maya at the beach",
        "vertical",
        "beach",
        "walking",
        "relaxed",
        ["sunglasses", "hat"],
        BASIC,
        "selfie of a woman walking on a beach, sun hat",
        true,
      ),
    ],
  },
  {
    id: "av_james",
    name: "James",
    gender: "male",
    age: "45",
    age_range: "adult",
    ethnicity: "black",
    hair_color: "black",
    looks: [
      look(
        "lk_james_podcast",
        "James on the podcast",
        "horizontal",
        "podcast",
        "talking",
        "focused",
        ["headphones", "microphone"],
        FULL,
        "man talking into a podcast microphone, headphones",
      ),
      look("lk_james_car", "James in the car", "vertical", "car", "talking", "calm", [], BASIC, "selfie of a man in a parked car", true),
    ],
  },
  {
    id: "av_lena",
    name: "Lena",
    gender: "female",
    age: "34",
    age_range: "adult",
    ethnicity: "white",
    hair_color: "blonde",
    looks: [
      look("lk_lena_gym", "Lena at the gym", "vertical", "gym", "exercising", "excited", ["water bottle"], VID, "woman exercising in a gym"),
      look("lk_lena_home", "Lena at home", "horizontal", "home", "sitting", "relaxed", ["mug"], PREMIUM, "woman sitting on a sofa with a mug"),
      look("lk_lena_studio", "Lena in the studio", "vertical", "studio", "presenting", "confident", ["earrings"], FULL, "woman presenting in a studio, earrings"),
    ],
  },
  {
    id: "av_kenji",
    name: "Kenji",
    gender: "male",
    age: "23",
    age_range: "young_adult",
    ethnicity: "east_asian",
    hair_color: "black",
    looks: [
      look(
        "lk_kenji_street",
        "Kenji in the street",
        "vertical",
        "street",
        "walking",
        "excited",
        ["backpack"],
        BASIC,
        "selfie of a young man walking down a city street, backpack",
        true,
      ),
      look("lk_kenji_bedroom", "Kenji in his room", "horizontal", "bedroom", "talking", "happy", ["headphones"], VID, "young man talking in his bedroom, headphones"),
    ],
  },
  {
    id: "av_aisha",
    name: "Aisha",
    gender: "female",
    age: "41",
    age_range: "adult",
    ethnicity: "middle_eastern",
    hair_color: "black",
    looks: [
      look(
        "lk_aisha_office",
        "Aisha at the office",
        "horizontal",
        "office",
        "presenting",
        "confident",
        ["headscarf"],
        FULL,
        "woman presenting in a modern office, headscarf",
      ),
      look("lk_aisha_outdoor", "Aisha outdoors", "vertical", "outdoor", "walking", "calm", ["headscarf", "sunglasses"], PREMIUM, "woman walking in a park, headscarf"),
    ],
  },
  {
    id: "av_robert",
    name: "Robert",
    gender: "male",
    age: "68",
    age_range: "senior",
    ethnicity: "white",
    hair_color: "gray",
    looks: [
      look("lk_robert_home", "Robert reading at home", "horizontal", "home", "reading", "calm", ["glasses"], PREMIUM, "older man reading in an armchair, glasses"),
      look("lk_robert_outdoor", "Robert in the garden", "vertical", "outdoor", "gardening", "happy", ["hat"], BASIC, "older man gardening, straw hat"),
      look("lk_robert_kitchen", "Robert in the kitchen", "vertical", "kitchen", "cooking", "happy", ["apron"], VID, "older man cooking, apron"),
      look("lk_robert_office", "Robert at the office", "horizontal", "office", "presenting", "confident", ["tie"], FULL, "older man in a suit presenting, tie"),
    ],
  },
  {
    id: "av_priya",
    name: "Priya",
    gender: "female",
    age: "17",
    age_range: "adolescent",
    ethnicity: "south_asian",
    hair_color: "black",
    looks: [
      look(
        "lk_priya_bedroom",
        "Priya in her room",
        "vertical",
        "bedroom",
        "talking",
        "excited",
        ["headphones"],
        BASIC,
        "selfie of a teenager in her bedroom, headphones",
        true,
      ),
      look("lk_priya_home", "Priya studying", "horizontal", "home", "studying", "focused", ["glasses"], PREMIUM, "teenager studying at a table, glasses"),
    ],
  },
  {
    id: "av_marco",
    name: "Marco",
    gender: "male",
    age: "38",
    age_range: "adult",
    ethnicity: "white",
    hair_color: "bald",
    looks: [
      look(
        "lk_marco_bathroom",
        "Marco's morning routine",
        "vertical",
        "bathroom",
        "grooming",
        "neutral",
        ["towel"],
        BASIC,
        "selfie of a man shaving in a bathroom mirror",
        true,
      ),
      look("lk_marco_kitchen", "Marco in the kitchen", "horizontal", "kitchen", "cooking", "happy", [], VID, "man cooking pasta in a kitchen"),
      look("lk_marco_car", "Marco in the car", "vertical", "car", "talking", "relaxed", ["sunglasses"], PREMIUM, "man talking in the driver's seat, sunglasses", true),
    ],
  },
  {
    id: "av_zoe",
    name: "Zoe",
    gender: "female",
    age: "30",
    age_range: "adult",
    ethnicity: "black",
    hair_color: "red",
    looks: [
      look("lk_zoe_beach", "Zoe at the beach", "horizontal", "beach", "talking", "happy", ["sunglasses"], VID, "woman talking on a sunny beach, sunglasses"),
      look(
        "lk_zoe_podcast",
        "Zoe on the podcast",
        "vertical",
        "podcast",
        "talking",
        "confident",
        ["headphones", "microphone"],
        FULL,
        "woman hosting a podcast, headphones",
      ),
    ],
  },
  {
    id: "av_diego",
    name: "Diego",
    gender: "male",
    age: "26",
    age_range: "young_adult",
    ethnicity: "hispanic",
    hair_color: "brown",
    looks: [
      look("lk_diego_gym", "Diego at the gym", "horizontal", "gym", "exercising", "focused", ["watch"], PREMIUM, "young man lifting weights, sports watch"),
      look("lk_diego_street", "Diego in the street", "vertical", "street", "walking", "excited", ["cap"], BASIC, "young man walking in the street, cap", true),
      look("lk_diego_studio", "Diego in the studio", "horizontal", "studio", "presenting", "neutral", [], FULL, "young man presenting in front of a backdrop"),
    ],
  },
];

const byId = new Map(CATALOG_AVATARS.map((a) => [a.id, a]));

export function catalogAvatar(id: string): CatalogAvatar | undefined {
  return byId.get(id);
}

/**
 * Catalog thumbnails are a 1080x1920 frame scaled by half: the size keeps the first list quick and is
 * plenty for a thumbnail. The version segment lets a change of catalog pictures make new files.
 */
export const CATALOG_THUMB_SIZE: Record<LookFormat, { width: number; height: number }> = {
  vertical: { width: 540, height: 960 },
  horizontal: { width: 960, height: 540 },
};
const CATALOG_MEDIA_VERSION = "v1";
/** From this many pictures to draw (two at a time, a few tenths of a second each) the wait is said. */
const SAY_DRAWING_FROM = 4;

/** Path of a catalog look's thumbnail, relative to the media dir. */
export function catalogLookRelPath(lookId: string): string {
  return path.posix.join("catalog", CATALOG_MEDIA_VERSION, "looks", `${lookId}.png`);
}

/** Where a catalog look's picture is: its copied one, else the one drawn from its description. */
export function catalogLookImageRel(look: Pick<CatalogLook, "id" | "image">): string {
  return look.image ?? catalogLookRelPath(look.id);
}

/**
 * Renders the thumbnails of these catalog looks that do not exist yet (looks with a copied picture
 * have nothing to render), all in one ffmpeg run. A `signal` stops the caller waiting, not the run:
 * that run is shared with every other caller needing the same pictures, and its files are kept.
 */
export async function ensureCatalogLookImages(mediaDir: string, items: readonly { avatar: CatalogAvatar; look: CatalogLook }[], signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const drawn = items.filter((x) => x.look.image === undefined);
  if (drawn.length === 0) return;
  // The first list in a new home draws every catalog picture (about a second): said, not a blank wait.
  const missing = drawn.filter(({ look }) => !fs.existsSync(path.join(mediaDir, catalogLookRelPath(look.id)))).length;
  if (missing >= SAY_DRAWING_FROM) notice(`drawing ${missing} pictures of the avatar catalog (once, on the first use of this home)…`);
  const { renderImages } = await import("../../../../media/image.js");
  const byFile = new Map(drawn.map((x) => [path.join(mediaDir, catalogLookRelPath(x.look.id)), x]));
  // All of them in one ffmpeg run: its start-up costs more than drawing a picture.
  const made = ensureFiles([...byFile.keys()], (files) =>
    renderImages(
      files.map(({ abs, tmp }) => {
        const { avatar, look } = byFile.get(abs)!;
        const size = CATALOG_THUMB_SIZE[look.format];
        return { out: tmp, width: size.width, height: size.height, prompt: `${avatar.name}: ${look.description}`, label: look.name };
      }),
    ),
  );
  await untilAborted(made, signal);
}

/** `p`, or the signal's reason as soon as it aborts (`p` goes on; its failure is then nobody's). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      p.catch(() => undefined);
      reject(signal.reason);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
