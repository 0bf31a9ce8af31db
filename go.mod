module github.com/ratewindow/ratewindow

go 1.26
