// The lessons the page teaches (../shared/lessons/), in the order of the page's picker: id and name in the picker,
// then each lesson's module (its Python in the .py file beside it). A module lesson gives defaults, input, order,
// maskStyle, lessonCode and lessonOutput (the page runs its forward); a fixed lesson (002) computes itself (compute,
// views, shown). Every lesson has title(eff), blurb(eff) and file (the lesson's text).
// The page's property list (state/) reads LESSONS alone: web/package.json's "sideEffects": false lets esbuild leave
// the lessons' code out of the bundles that need only their names (the lab, the element).
import { lesson000 } from './lesson000.js';
import { lesson001 } from './lesson001.js';
import { lesson002 } from './lesson002.js';
import { lesson003 } from './lesson003.js';
import { lesson004 } from './lesson004.js';

export const LESSONS = [
  { id: 'lesson000', menu: '000 · Chapter 2.3 (64, 8)' },
  { id: 'lesson001', menu: '001 · Self-attention (8, 2)' },
  { id: 'lesson002', menu: '002 · Committee of Experts' },
  { id: 'lesson003', menu: '003 · Dropout + triu mask (64, 4)' },
  { id: 'lesson004', menu: '004 · Shape table (512, 8)' },
];
const BY_ID = { lesson000, lesson001, lesson002, lesson003, lesson004 };
export const lessonById = (id) => BY_ID[id] || null;
