/**
 * Colours of the template DSL (DESIGN §5 "Colours are #rgb, #rrggbb or a CSS name").
 *
 * The 148 CSS named colours (CSS Color Module Level 4, including `rebeccapurple`), shared by the
 * template schema (validation) and layout/paint (conversion to RGB).
 */

/** The CSS named colours as `name:rrggbb` pairs, one string so the module stays small. */
const NAMED = `
  aliceblue:f0f8ff antiquewhite:faebd7 aqua:00ffff aquamarine:7fffd4 azure:f0ffff beige:f5f5dc
  bisque:ffe4c4 black:000000 blanchedalmond:ffebcd blue:0000ff blueviolet:8a2be2 brown:a52a2a
  burlywood:deb887 cadetblue:5f9ea0 chartreuse:7fff00 chocolate:d2691e coral:ff7f50
  cornflowerblue:6495ed cornsilk:fff8dc crimson:dc143c cyan:00ffff darkblue:00008b darkcyan:008b8b
  darkgoldenrod:b8860b darkgray:a9a9a9 darkgreen:006400 darkgrey:a9a9a9 darkkhaki:bdb76b
  darkmagenta:8b008b darkolivegreen:556b2f darkorange:ff8c00 darkorchid:9932cc darkred:8b0000
  darksalmon:e9967a darkseagreen:8fbc8f darkslateblue:483d8b darkslategray:2f4f4f
  darkslategrey:2f4f4f darkturquoise:00ced1 darkviolet:9400d3 deeppink:ff1493 deepskyblue:00bfff
  dimgray:696969 dimgrey:696969 dodgerblue:1e90ff firebrick:b22222 floralwhite:fffaf0
  forestgreen:228b22 fuchsia:ff00ff gainsboro:dcdcdc ghostwhite:f8f8ff gold:ffd700 goldenrod:daa520
  gray:808080 green:008000 greenyellow:adff2f grey:808080 honeydew:f0fff0 hotpink:ff69b4
  indianred:cd5c5c indigo:4b0082 ivory:fffff0 khaki:f0e68c lavender:e6e6fa lavenderblush:fff0f5
  lawngreen:7cfc00 lemonchiffon:fffacd lightblue:add8e6 lightcoral:f08080 lightcyan:e0ffff
  lightgoldenrodyellow:fafad2 lightgray:d3d3d3 lightgreen:90ee90 lightgrey:d3d3d3 lightpink:ffb6c1
  lightsalmon:ffa07a lightseagreen:20b2aa lightskyblue:87cefa lightslategray:778899
  lightslategrey:778899 lightsteelblue:b0c4de lightyellow:ffffe0 lime:00ff00 limegreen:32cd32
  linen:faf0e6 magenta:ff00ff maroon:800000 mediumaquamarine:66cdaa mediumblue:0000cd
  mediumorchid:ba55d3 mediumpurple:9370db mediumseagreen:3cb371 mediumslateblue:7b68ee
  mediumspringgreen:00fa9a mediumturquoise:48d1cc mediumvioletred:c71585 midnightblue:191970
  mintcream:f5fffa mistyrose:ffe4e1 moccasin:ffe4b5 navajowhite:ffdead navy:000080 oldlace:fdf5e6
  olive:808000 olivedrab:6b8e23 orange:ffa500 orangered:ff4500 orchid:da70d6 palegoldenrod:eee8aa
  palegreen:98fb98 paleturquoise:afeeee palevioletred:db7093 papayawhip:ffefd5 peachpuff:ffdab9
  peru:cd853f pink:ffc0cb plum:dda0dd powderblue:b0e0e6 purple:800080 rebeccapurple:663399
  red:ff0000 rosybrown:bc8f8f royalblue:4169e1 saddlebrown:8b4513 salmon:fa8072 sandybrown:f4a460
  seagreen:2e8b57 seashell:fff5ee sienna:a0522d silver:c0c0c0 skyblue:87ceeb slateblue:6a5acd
  slategray:708090 slategrey:708090 snow:fffafa springgreen:00ff7f steelblue:4682b4 tan:d2b48c
  teal:008080 thistle:d8bfd8 tomato:ff6347 turquoise:40e0d0 violet:ee82ee wheat:f5deb3 white:ffffff
  whitesmoke:f5f5f5 yellow:ffff00 yellowgreen:9acd32`;

/** Lower-case CSS colour name -> [r, g, b] (0-255). A Map: no prototype lookups. */
export const CSS_COLORS: ReadonlyMap<string, readonly [number, number, number]> = (() => {
  const map = new Map<string, readonly [number, number, number]>();
  for (const pair of NAMED.split(/\s+/)) {
    if (pair === '') continue;
    const [name, hex] = pair.split(':');
    map.set(name, [parseInt(hex.slice(0, 2), 16), parseInt(hex.slice(2, 4), 16), parseInt(hex.slice(4, 6), 16)]);
  }
  return map;
})();

/** The longest CSS colour name's length: a longer text is no colour, whatever its case. */
const LONGEST_NAME = Math.max(...[...CSS_COLORS.keys()].map((name) => name.length));

function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  if (code >= 65 && code <= 70) return code - 55; // A-F
  return -1;
}

/**
 * Parses a DSL colour: `#rgb`, `#rrggbb` (hex digits in either case) or a CSS colour name
 * (case-insensitive; surrounding spaces ignored). Returns `[r, g, b]` with 0-255 components, or
 * `null` when the string is not a colour. Never throws. DESIGN §5.
 */
export function parseColor(s: string): [number, number, number] | null {
  if (typeof s !== 'string') return null;
  const t = s.trim();
  if (t.charCodeAt(0) === 35 /* # */) {
    if (t.length === 4) {
      const r = hexDigit(t.charCodeAt(1));
      const g = hexDigit(t.charCodeAt(2));
      const b = hexDigit(t.charCodeAt(3));
      if (r < 0 || g < 0 || b < 0) return null;
      return [r * 17, g * 17, b * 17];
    }
    if (t.length === 7) {
      const out: [number, number, number] = [0, 0, 0];
      for (let i = 0; i < 3; i++) {
        const hi = hexDigit(t.charCodeAt(1 + 2 * i));
        const lo = hexDigit(t.charCodeAt(2 + 2 * i));
        if (hi < 0 || lo < 0) return null;
        out[i] = hi * 16 + lo;
      }
      return out;
    }
    return null;
  }
  // Without this a long text from the data is copied (lower-cased) at every use.
  if (t.length > LONGEST_NAME) return null;
  const named = CSS_COLORS.get(t.toLowerCase());
  return named ? [named[0], named[1], named[2]] : null;
}

/** True when `s` is a DSL colour (see {@link parseColor}). DESIGN §5. */
export function isColor(s: string): boolean {
  return parseColor(s) !== null;
}
