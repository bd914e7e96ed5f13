import Foundation
import Testing

@testable import HeritageApp

/// The catalogues: French has exactly the keys of English, and the language is chosen as documented.
@Suite struct MessageCatalogTests {
    @Test func frenchHasExactlyTheKeysOfEnglish() throws {
        let catalog = try MessageCatalog(directory: TestPaths.packageRoot + "/Templates")
        let english = Set(catalog.messages(for: .en).flat.keys)
        let french = Set(catalog.messages(for: .fr).flat.keys)
        #expect(!english.isEmpty)
        #expect(english.subtracting(french).sorted() == [])
        #expect(french.subtracting(english).sorted() == [])
        for key in english { #expect(catalog.messages(for: .fr)[key].isEmpty == false, "empty: \(key)") }
        // The exact words LST-08 requires.
        #expect(catalog.messages(for: .en)["list.deleteFailure.title"] == "Report Deletion Failure")
        #expect(
            catalog.messages(for: .en)["list.deleteFailure.message"]
                == "Our servers cannot process your request at this time. Please try again later.")
    }

    /// REV-08: the audit log names every action by its label: each action the code writes to `review_audit`
    /// (found in the sources, so a new one cannot be forgotten) is in the log's filter and has a label
    /// in both languages.
    @Test func everyAuditActionHasALabelAndIsInTheFilter() throws {
        let catalog = try MessageCatalog(directory: TestPaths.packageRoot + "/Templates")
        let sources = TestPaths.packageRoot + "/Sources/HeritageApp"
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources).filter { $0.hasSuffix(".swift") }
        let pattern = try Regex(#"action: "([a-z_]+)""#)
        var written: Set<String> = []
        for file in files {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { written.insert(String(name)) }
            }
        }
        #expect(written.count > 20, "the scan finds the actions")
        #expect(written.subtracting(ReviewAuditScreen.actions).sorted() == [])
        for action in ReviewAuditScreen.actions {
            for language in [Language.en, .fr] {
                let label = catalog.messages(for: language)["review.action.\(action)"]
                #expect(!label.isEmpty && label != "review.action.\(action)", "\(language): \(action)")
            }
        }
    }

    @Test func languageComesFromCookieThenAcceptLanguageThenEnglish() {
        #expect(Language.negotiate(cookie: "fr", acceptLanguage: "en") == .fr)
        #expect(Language.negotiate(cookie: "de", acceptLanguage: "fr-CA,fr;q=0.9") == .fr)
        #expect(Language.negotiate(cookie: nil, acceptLanguage: "de-DE,fr;q=0.5,en;q=0.7") == .en)
        #expect(Language.negotiate(cookie: nil, acceptLanguage: "de-DE,fr;q=0.8,en;q=0.7") == .fr)
        #expect(Language.negotiate(cookie: nil, acceptLanguage: "fr;q=0, de") == .en)
        #expect(Language.negotiate(cookie: nil, acceptLanguage: "FR-fr") == .fr)
        #expect(Language.negotiate(cookie: nil, acceptLanguage: ";;;,,q=abc") == .en)
        #expect(Language.negotiate(cookie: nil, acceptLanguage: nil) == .en)
    }

    @Test func languageSwitchOnlyRedirectsOnThisSite() {
        #expect(LanguageSwitch.localPath("/reports") == "/reports")
        #expect(LanguageSwitch.localPath("//evil.example/x") == "/")
        #expect(LanguageSwitch.localPath("/\\evil.example") == "/")
        #expect(LanguageSwitch.localPath("https://evil.example") == "/")
        #expect(LanguageSwitch.localPath("/a\r\nSet-Cookie: x=1") == "/")
        #expect(LanguageSwitch.localPath(nil) == "/")
    }
}
