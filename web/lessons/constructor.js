// The constructor lessons 000, 002 and 004 share, for their files' $constructor.
import { cells } from './python.js';
import text from './mha_constructor.py';

export const constructor = cells(text).constructor;
