import Basics
import FoundationEssentials
import PlatformClient
import Testing

@testable import HeritageApp

@Suite struct ConfigurationTests {
    @Test func defaultFileMatchesBuiltInDefaults() throws {
        let fromFile = try Configuration.load(file: TestPaths.packageRoot + "/config/default.json", environment: [:])
        #expect(fromFile == Configuration())
    }

    @Test func everyKeyIsInTheDefaultFileAndDocumented() throws {
        let data = try #require(FileManager.default.contents(atPath: TestPaths.packageRoot + "/config/default.json"))
        let object = try JSONDecoder().decode([String: JSONValue].self, from: data)
        let doc = String(
            decoding: FileManager.default.contents(atPath: TestPaths.packageRoot + "/docs/CONFIGURATION.md") ?? Data(),
            as: UTF8.self)
        for key in Configuration.keys {
            #expect(object[key.name] != nil, "config/default.json lacks \(key.name)")
            #expect(doc.contains("`\(key.name)`"), "docs/CONFIGURATION.md lacks \(key.name)")
        }
        #expect(object.count == Configuration.keys.count)
    }

    @Test func environmentWinsOverFile() throws {
        let file = try TestPaths.temporaryFile(contents: #"{"port": 9000, "host": "0.0.0.0"}"#)
        let configuration = try Configuration.load(file: file, environment: ["HAR_PORT": "9100", "PATH": "/bin"])
        #expect(configuration.port == 9100)
        #expect(configuration.host == "0.0.0.0")
    }

    @Test func unknownFileKeyIsNamed() throws {
        let file = try TestPaths.temporaryFile(contents: #"{"prot": 9000}"#)
        #expect(throws: ConfigurationError("\(file): unknown configuration key \"prot\"")) {
            try Configuration.load(file: file, environment: [:])
        }
    }

    @Test func unknownVariableIsNamed() {
        #expect(throws: ConfigurationError("unknown configuration variable HAR_PROT")) {
            try Configuration.load(file: nil, environment: ["HAR_PROT": "1"])
        }
    }

    /// scripts/setup's own switches are not configuration: they pass through scripts/run to the server.
    @Test func setupScriptVariablesAreNotConfiguration() throws {
        let configuration = try Configuration.load(
            file: nil, environment: ["HAR_SETUP_BROWSER": "0", "HAR_SETUP_BENCH": "1", "HAR_PORT": "8181"])
        #expect(configuration.port == 8181)
    }

    @Test(arguments: [
        (#"{"port": "eighty"}"#, "port"), (#"{"port": 70000}"#, "port"), (#"{"port": 80.5}"#, "port"),
        (#"{"access_log": "yes"}"#, "access_log"), (#"{"host": ""}"#, "host"), (#"{"threads": 0}"#, "threads"),
        (#"{"platform_timeout": -1}"#, "platform_timeout"), (#"{"tls_cert": 3}"#, "tls_cert"),
        (#"{"connection_memory_bytes": 4096}"#, "connection_memory_bytes"),
    ])
    func badFileValueIsNamed(json: String, key: String) throws {
        let file = try TestPaths.temporaryFile(contents: json)
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration.load(file: file, environment: [:])
        }
        #expect(error.message.contains("bad value for \"\(key)\""))
    }

    @Test func badVariableValueIsNamed() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try Configuration.load(file: nil, environment: ["HAR_PORT": "http"])
        }
        #expect(error.message == "bad value for HAR_PORT: expected a whole number from 0 to 65535")
    }

    @Test func notJSONIsReported() throws {
        let file = try TestPaths.temporaryFile(contents: "port = 8080")
        #expect(throws: ConfigurationError("\(file): not a JSON object of configuration keys")) {
            try Configuration.load(file: file, environment: [:])
        }
    }

    @Test func upstreamNeedsKeyAndSecret() throws {
        let production = TestPaths.packageRoot + "/config/example.production.json"
        #expect(throws: ConfigurationError("platform_url is set but consumer_secret is missing")) {
            try Configuration.load(file: production, environment: [:])
        }
        let configuration = try Configuration.load(file: production, environment: ["HAR_CONSUMER_SECRET": "c2VjcmV0"])
        #expect(configuration.usesUpstreamPlatform)
        #expect(configuration.consumerSecret == "c2VjcmV0")
        #expect(throws: ConfigurationError("platform_url is set but consumer_key is missing")) {
            try Configuration.load(
                file: nil, environment: ["HAR_PLATFORM_URL": "https://api.heobs.org", "HAR_CONSUMER_SECRET": "x"])
        }
    }

    @Test func plainHTTPGoesOnlyToThisMachine() throws {
        let base = ["HAR_CONSUMER_KEY": "k", "HAR_CONSUMER_SECRET": "s"]
        for url in ["http://127.0.0.1:8090", "http://localhost:9000/", "http://[::1]:8090"] {
            #expect(
                try Configuration.load(file: nil, environment: base.merging(["HAR_PLATFORM_URL": url]) { $1 })
                    .platformURL == url)
        }
        for url in [
            "http://api.heobs.org", "http://127.0.0.1.evil.example", "http://127.0.0.1@evil.example", "http://10.0.0.5",
        ] {
            let error = try #require(throws: ConfigurationError.self) {
                try Configuration.load(file: nil, environment: base.merging(["HAR_PLATFORM_URL": url]) { $1 })
            }
            #expect(error.message.contains("plain http:// is allowed only to this machine"), "\(url)")
        }
    }

    @Test func tlsNeedsBothFiles() {
        #expect(throws: ConfigurationError("tls_cert and tls_key go together: set both or neither")) {
            try Configuration.load(file: nil, environment: ["HAR_TLS_CERT": "/tmp/cert.pem"])
        }
    }
}
