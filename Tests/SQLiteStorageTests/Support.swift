// The shared test support (scratch folders among others) for every file of this target.
@_exported import TestSupport
