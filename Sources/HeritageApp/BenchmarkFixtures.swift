import HTTPServer
import Mustache
import Storage

#if canImport(Glibc)
    import Glibc
#endif

/// The two routes `bench/run` measures besides static files, on only with `benchmark_routes`:
/// a page of 50 rows read from SQLite and rendered through a template, and a multipart upload received
/// to disk and fsynced. They run through the same server, store and template code as every page; their
/// data lives in a database of their own so that they never touch the application's.
final class BenchmarkFixtures: Sendable {
    let store: DatabasePool
    let templates: TemplateLibrary

    init(path: String, templates: TemplateLibrary) throws {
        store = try DatabasePool(
            path: path,
            configuration: .init(migrations: [
                Migration(
                    version: 1, name: "sample_rows",
                    sql: """
                        CREATE TABLE sample_rows (
                            id INTEGER PRIMARY KEY, name TEXT NOT NULL, address TEXT NOT NULL, created TEXT NOT NULL
                        ) STRICT;
                        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
                        INSERT INTO sample_rows (name, address, created)
                        SELECT 'Chapel of St Ninian & <Friends> no. ' || i, i || ' Church Lane, Whithorn',
                               strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-' || i || ' days') FROM n;
                        """)
            ]))
        self.templates = templates
    }

    func addRoutes(to router: inout Router) {
        router.getInline("/bench/rows") { [self] _ in
            let rows = try store.read { database in
                try database.query("SELECT name, address, created FROM sample_rows ORDER BY id LIMIT 50") {
                    row -> MustacheValue in
                    [
                        "name": .string(try row.string(0) ?? ""), "address": .string(try row.string(1) ?? ""),
                        "created": .string(try row.string(2) ?? ""),
                    ]
                }
            }
            let context: MustacheValue = ["lang": "en", "title": "Fifty rows", "rows": .array(rows)]
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
