// The lessons the page teaches (../shared/lessons/), in the order of the page's picker: id and name in the picker.
// Apart from their code (index.js), so that the property lists (state/page.js) can name them without their Python.
export const LESSONS = [
  { id: 'lesson000', menu: '000 · Chapter 2.3 (64, 8)' },
  { id: 'lesson001', menu: '001 · Self-attention (8, 2)' },
  { id: 'lesson002', menu: '002 · Committee of Experts' },
  { id: 'lesson003', menu: '003 · Dropout + triu mask (64, 4)' },
  { id: 'lesson004', menu: '004 · Shape table (512, 8)' },
];
