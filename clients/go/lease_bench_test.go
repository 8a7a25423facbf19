package pgflake

import (
	"context"
	"testing"
	"time"
)

// go test -bench Generate: one Generate call (no server; make bench has
// the figures against one, cmd/pgflake-bench).
func BenchmarkGenerate(b *testing.B) {
	for _, name := range []string{"sno", "snowflake", "kuid96", "siq"} {
		b.Run(name, func(b *testing.B) {
			source := realFake(name)
			ctx := context.Background()
			var next func() error
			switch name {
			case "sno":
				g, _ := TakeSno(ctx, source, "bench", time.Minute, 0)
				defer g.Close()
				next = func() error { _, err := g.Generate(); return err }
			case "snowflake":
				g, _ := TakeSnowflake(ctx, source, "bench", time.Minute)
				defer g.Close()
				next = func() error { _, err := g.Generate(); return err }
			case "kuid96":
				g, _ := TakeKuid96(ctx, source, "bench", time.Minute)
				defer g.Close()
				next = func() error { _, err := g.Generate(); return err }
			default:
				g, _ := TakeSiq(ctx, source, "bench", time.Minute, "", "")
				defer g.Close()
				next = func() error { _, err := g.Generate(); return err }
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := next(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
