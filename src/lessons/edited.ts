/** `npm start`: the event a lesson's module sends with its new version after its files were saved. */
export const LESSON_EDITED = 'steplight:lesson-edited';
