module example.test/core

go 1.26.0
