module example.test/boot

go 1.26.0
