/** npm run schema: write schemas/lesson.schema.json from the loader's own schema (editors autocomplete lesson.yaml with it). */
import { writeFileSync } from 'node:fs';
import { lessonJsonSchema } from '../src/lessons/schema';

writeFileSync('schemas/lesson.schema.json', `${JSON.stringify(lessonJsonSchema(), null, 2)}\n`);
console.log('wrote schemas/lesson.schema.json');
