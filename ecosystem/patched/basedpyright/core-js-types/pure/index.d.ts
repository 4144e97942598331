// A stand-in for @core-js/types/pure (core-js 4.0.0-alpha.1), which the npm registry
// reachable here does not serve: the declarations of the three modules that
// pyright-internal imports, which offline_build.py maps to core-js-pure 3 (same paths).
/// <reference lib="es2025.collection" />
/// <reference lib="es2023.array" />
declare module '@core-js/pure/es/array/at' {
    export default function at<T>(array: ArrayLike<T>, index: number): T | undefined;
}
declare module '@core-js/pure/es/array/to-spliced' {
    // The array is typed as core-js 4.0.0-alpha.1 types it, which pyright's code works
    // around with a @ts-expect-error (core-js issue 1532).
    export default function toSpliced<T>(array: readonly never[], start: number, skipCount?: number, ...items: T[]): T[];
}
declare module '@core-js/pure/full/set' {
    const Set: SetConstructor;
    export default Set;
}
