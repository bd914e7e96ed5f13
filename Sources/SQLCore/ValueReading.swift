/// A row's values by position and by column name, as both drivers give them (SQLite's `Row` and
/// `Statement`, PostgreSQL's `PostgresRow`): the typed reads are written once, here. Typed reads give
/// nil for NULL (or a stored type that does not convert; see `SQLValue`); a column the query does not
/// return throws, so a typo fails loudly instead of reading as NULL. Inlinable: the list's page reads
/// every column of a statement this way, and the call stays as direct as a method of its own.
///
/// The reads by position of an integer, a real and a text are requirements with these defaults, so
/// that a driver can read a cell straight into the type asked for (SQLite's `Statement` does: no
/// `SQLValue` is made on the way), giving exactly what the default gives.
public protocol ValueReading {
    func value(at index: Int) throws -> SQLValue
    func value(named name: String) throws -> SQLValue
    func int(_ index: Int) throws -> Int64?
    func double(_ index: Int) throws -> Double?
    func string(_ index: Int) throws -> String?
}

extension ValueReading {
    @inlinable public func isNull(_ index: Int) throws -> Bool { try value(at: index) == .null }
    @inlinable public func isNull(_ name: String) throws -> Bool { try value(named: name) == .null }
    @inlinable public func int(_ index: Int) throws -> Int64? { try value(at: index).int }
    @inlinable public func int(_ name: String) throws -> Int64? { try value(named: name).int }
    @inlinable public func double(_ index: Int) throws -> Double? { try value(at: index).double }
    @inlinable public func double(_ name: String) throws -> Double? { try value(named: name).double }
    @inlinable public func string(_ index: Int) throws -> String? { try value(at: index).string }
    @inlinable public func string(_ name: String) throws -> String? { try value(named: name).string }
    @inlinable public func blob(_ index: Int) throws -> [UInt8]? { try value(at: index).blob }
    @inlinable public func blob(_ name: String) throws -> [UInt8]? { try value(named: name).blob }
}
