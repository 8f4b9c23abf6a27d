// The lessons' registry: each lesson of catalogue.js by its id, a module of its own with its Python in the .py file
// beside it. A module lesson gives defaults, input, order, maskStyle, lessonCode and lessonOutput (the page runs its
// forward); a fixed lesson (002) computes itself (compute, views, shown). Every lesson has title(eff), blurb(eff)
// and file (the lesson's text).
import { lesson000 } from './lesson000.js';
import { lesson001 } from './lesson001.js';
import { lesson002 } from './lesson002.js';
import { lesson003 } from './lesson003.js';
import { lesson004 } from './lesson004.js';

export { LESSONS } from './catalogue.js';
const BY_ID = { lesson000, lesson001, lesson002, lesson003, lesson004 };
export const lessonById = (id) => BY_ID[id] || null;
