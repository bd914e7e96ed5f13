// swift-tools-version:6.0
// Heritage at Risk for the web: one executable (`har`), library targets that tests import directly,
// and system-library targets for the four C libraries taken from Debian.
import PackageDescription

let package = Package(
    name: "heritage-at-risk",
    products: [
        .executable(name: "har", targets: ["har"])
    ],
    targets: [
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // zlib: deflate and CRC-32 of the review's photos archive.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libvips is opened at first use (see its shim.h), so neither its headers' flags nor its libraries
        // are needed to build; Debian's libvips42 (from libvips-dev in scripts/setup) is needed to run.
        .systemLibrary(name: "CVips"),
        // Compression of responses: gzip for pages and JSON, gzip and brotli for static assets.
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlienc", providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "CPostgreSQL", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // QR codes of the kiosks' enrolment links and receipts, drawn as SVG.
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),

        // What both database drivers share: SQLValue, the row readers, Migration and its plan.
        .target(name: "SQLCore"),
        .target(name: "SQLiteStorage", dependencies: ["Basics", "CSQLite", "SQLCore"]),
        .target(name: "Mustache", dependencies: ["Basics"]),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CZlib", "CBrotli"]),
        .target(name: "Basics"),
        // The client needs neither an HTTP server nor SQLite: keep HTTPServer and SQLiteStorage out of this list.
        .target(name: "PlatformClient", dependencies: ["Basics", "CCurl", "COpenSSL"]),
        .target(name: "LocalPlatform", dependencies: ["Basics", "PlatformClient", "HTTPServer", "SQLiteStorage"]),
        .target(
            name: "HeritageApp",
            dependencies: [
                "Basics", "HTTPServer", "SQLiteStorage", "Mustache", "PlatformClient", "LocalPlatform", "Imaging",
                "COpenSSL",
                "PostgresStorage",
                "CZlib", "CQRencode",
                // Mail through libcurl's SMTP (docs/NOTIFICATIONS.md).
                "CCurl",
            ]),
        .target(name: "Imaging", dependencies: ["Basics", "CVips"]),
        .executableTarget(name: "har", dependencies: ["HeritageApp"]),
        .target(name: "PostgresStorage", dependencies: ["CPostgreSQL", "SQLCore"]),

        // Shared by every test target: scratch folders, paths, hex, polling, child processes, the HTTP client.
        .target(name: "TestSupport", dependencies: ["PostgresStorage"], path: "Tests/TestSupport"),
        .testTarget(name: "SQLiteStorageTests", dependencies: ["SQLiteStorage", "TestSupport"]),
        .testTarget(name: "MustacheTests", dependencies: ["Mustache", "TestSupport"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport", "CZlib", "CBrotli"]),
        .testTarget(name: "BasicsTests", dependencies: ["Basics", "TestSupport"]),
        .testTarget(
            name: "PlatformTests",
            dependencies: ["Basics", "PlatformClient", "LocalPlatform", "HTTPServer", "SQLiteStorage", "TestSupport"]),
        .testTarget(
            name: "HeritageAppTests",
            dependencies: [
                "HeritageApp", "Basics", "PlatformClient", "LocalPlatform", "HTTPServer", "SQLiteStorage", "Imaging",
                "CVips",
                "TestSupport",
            ]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "TestSupport"]),
        .testTarget(name: "PostgresStorageTests", dependencies: ["PostgresStorage", "SQLiteStorage", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// Release builds carry the Swift runtime in the binary, as `swift build --static-swift-stdlib` makes it
// (SE-0342): `har` then runs without the toolchain's libraries beside it, and at rest maps about 4 MB
// fewer pages (docs/BENCHMARKS.md, "Resident memory at rest"). Every module is compiled with the flag too,
// so that Foundation's modules are found with their static dependencies. Debug builds and the tests link
// the runtime dynamically, which builds faster.
let staticRuntime: [SwiftSetting] = [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + staticRuntime
}
for target in package.targets where target.type == .executable {
    target.linkerSettings =
        (target.linkerSettings ?? []) + [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
}
