import HTTPServer
import Mustache

#if canImport(Glibc)
    import Glibc
#endif

/// The two routes `bench/run` measures besides static files, on only with `benchmark_routes`:
/// a page of 50 rows read from SQLite and rendered through a template, and a multipart upload received
/// to disk and fsynced. They run through the same server, store and template code as every page; their
/// data lives in a database of their own so that they never touch the application's.
final class BenchmarkFixtures: Sendable {
    let store: any BenchmarkStore
    let templates: TemplateLibrary

    init(path: String, templates: TemplateLibrary) throws {
        store = try SQLiteBenchmarkStore(path: path)
        self.templates = templates
    }

    func addRoutes(to router: inout Router) {
        router.getInline("/bench/rows") { [self] _ in
            let context: MustacheValue = ["lang": "en", "title": "Fifty rows", "rows": .table(try store.sampleRows())]
            return Response(
                status: 200, contentType: "text/html; charset=utf-8",
                body: try templates.renderBytes("bench/rows", context))
        }
        router.postInline("/bench/upload") { request in
            var total = 0
            for file in request.files {
                let descriptor = open(file.path, O_RDONLY)
                if descriptor >= 0 {
                    fsync(descriptor)
                    Glibc.close(descriptor)
                }
                total += file.size
            }
            return Response.json(Array(#"{"files":\#(request.files.count),"bytes":\#(total)}"#.utf8))
        }
    }

    func close() { store.close() }
}
