import type { Gender } from '../twins/body.ts';

export const CLOTHING_SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL', '3XL'] as const;
export type ClothingSizeLabel = (typeof CLOTHING_SIZES)[number];

/**
 * EN 13402-3 letter codes, designated by one primary girth: bust for women, chest for men (cm,
 * [min, max)). Source: the standard's letter-code table as printed in Wikipedia "EN 13402"
 * (section "Letter codes") and onlineconversion.com/clothing_en13402_standard.htm, quoted in
 * /work/shared/data/anthropometry/size-charts.md section 1. Women's L and above are uncertain by
 * about 1 cm between copies.
 */
export const EN13402_CHEST_BANDS: Readonly<Record<Gender, Readonly<Record<ClothingSizeLabel, readonly [number, number]>>>> = {
  female: { XS: [74, 82], S: [82, 90], M: [90, 98], L: [98, 107], XL: [107, 119], XXL: [119, 131], '3XL': [131, 143] },
  male: { XS: [78, 86], S: [86, 94], M: [94, 102], L: [102, 110], XL: [110, 118], XXL: [118, 129], '3XL': [129, 141] },
};

export function isClothingSize(value: unknown): value is ClothingSizeLabel {
  return typeof value === 'string' && (CLOTHING_SIZES as readonly string[]).includes(value);
}

/** The letter whose band holds the chest; girths beyond the table take the closest end letter. */
export function letterForChest(chest: number, gender: Gender): ClothingSizeLabel {
  const bands = EN13402_CHEST_BANDS[gender];
  for (const size of CLOTHING_SIZES) if (chest < bands[size][1]) return size;
  return '3XL';
}
