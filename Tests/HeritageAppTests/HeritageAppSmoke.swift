import Testing
@testable import HeritageApp
