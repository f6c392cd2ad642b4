/** Types of the `linebreak` package (UAX #14), which ships none. */
declare module 'linebreak' {
  export interface Break {
    /** Index in the string after which a line may (or, if required, must) break. */
    position: number;
    required: boolean;
  }
  export default class LineBreaker {
    constructor(text: string);
    nextBreak(): Break | null;
  }
}
