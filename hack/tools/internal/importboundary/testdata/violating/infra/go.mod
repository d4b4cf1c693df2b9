module example.test/infra

go 1.26.0
