// How the server's process gives memory back to the system (docs/BENCHMARKS.md "Resident
// memory at rest"). glibc's malloc, read in its manual (mallopt(3), malloc_trim(3)): an allocation of
// M_MMAP_THRESHOLD bytes or more (128 KiB) is a mapping of its own, unmapped when freed; anything smaller
// comes from an arena that gives back only what is free at its top. By default the threshold moves: each
// freed mapping raises it to that mapping's size (up to 32 MiB). Brotli's working memory for Leaflet
// (12 MB, once, when the static files are compressed) then made every later allocation up to 12 MB come
// from the arenas, where one small block kept after them holds the pages below it for good.
import CMicroHTTPD

public enum ProcessMemory {
    /// Keeps glibc's default threshold (128 KiB) for the life of the process: large buffers (brotli's
    /// and zlib's working memory, a photo being decoded) stay mappings of their own and leave when freed.
    /// Setting it also stops the trim threshold from moving, which stays at its default. Called once,
    /// before the server allocates anything large.
    public static func keepLargeAllocationsApart() {
        _ = har_malloc_fix_mmap_threshold(128 * 1024)
    }

    /// Gives the free pages inside every malloc arena back to the system (`malloc_trim(0)`); after a burst
    /// of short-lived work (loading the static files), not on a request's path.
    public static func trim() {
        _ = har_malloc_trim()
    }
}
